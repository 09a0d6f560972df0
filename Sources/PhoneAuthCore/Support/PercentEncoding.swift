/// Percent-encoding of URL components (RFC 3986) and strict parsing of query strings.
package enum PercentEncoding {
    /// Every byte but the unreserved characters A-Z a-z 0-9 - . _ ~ as %XX.
    package static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    /// Decodes %XX (and + as a space, as forms write it); nil for a malformed escape or invalid UTF-8.
    package static func decode<S: StringProtocol>(_ text: S) -> String? { decode(bytes: text.utf8) }

    private static func decode(bytes text: some Collection<UInt8>) -> String? {
        // Most names and values have nothing to decode.
        guard text.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(validating: text, as: UTF8.self)
        }
        var bytes: [UInt8] = []
        var iterator = text.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The name=value pairs of a query string, decoded; nil if any is malformed. Split by bytes:
    /// `&` and `=` are ASCII, never part of another character's UTF-8.
    package static func queryItems<S: StringProtocol>(_ query: S) -> [(String, String)]? {
        var items: [(String, String)] = []
        for part in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            guard let equals = part.firstIndex(of: UInt8(ascii: "=")),
                let name = decode(bytes: part[..<equals]), let value = decode(bytes: part[part.index(after: equals)...])
            else { return nil }
            items.append((name, value))
        }
        return items
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
