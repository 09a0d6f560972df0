/// Base64url without padding (RFC 4648 §5), as JWTs and URL-safe identifiers use it.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    /// Writes straight into the string's storage: no array of four per three bytes.
    package static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        let length = (input.count * 4 + 2) / 3
        return input.withUnsafeBufferPointer { source in
            alphabet.withUnsafeBufferPointer { table in
                String(unsafeUninitializedCapacity: length) { out in
                    var i = 0, o = 0
                    while i + 3 <= source.count {
                        let n = UInt32(source[i]) << 16 | UInt32(source[i + 1]) << 8 | UInt32(source[i + 2])
                        out[o] = table[Int(n >> 18 & 63)]
                        out[o + 1] = table[Int(n >> 12 & 63)]
                        out[o + 2] = table[Int(n >> 6 & 63)]
                        out[o + 3] = table[Int(n & 63)]
                        i += 3
                        o += 4
                    }
                    let rest = source.count - i
                    if rest > 0 {
                        let n = UInt32(source[i]) << 16 | (rest == 2 ? UInt32(source[i + 1]) << 8 : 0)
                        out[o] = table[Int(n >> 18 & 63)]
                        out[o + 1] = table[Int(n >> 12 & 63)]
                        if rest == 2 { out[o + 2] = table[Int(n >> 6 & 63)] }
                        o += rest + 1
                    }
                    return o
                }
            }
        }
    }

    /// Decodes unpadded base64url; nil for any character outside the alphabet or an impossible length.
    package static func decode(_ text: Substring) -> [UInt8]? {
        let input = Array(text.utf8)
        if input.count % 4 == 1 { return nil }
        var out = [UInt8]()
        out.reserveCapacity(input.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for c in input {
            let v = reverse[Int(c)]
            if v == 0xFF { return nil }
            buffer = buffer << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return out
    }

    package static func decode(_ text: String) -> [UInt8]? { decode(Substring(text)) }
}

/// Standard base64 with padding, for keys given in configuration.
package enum Base64 {
    package static func decode(_ text: String) -> [UInt8]? {
        var s = Substring(text)
        while s.hasSuffix("=") { s = s.dropLast() }
        if s.contains("-") || s.contains("_") { return nil }
        return Base64URL.decode(String(s.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 }))
    }

    package static func encode(_ bytes: [UInt8]) -> String {
        var s = String(Base64URL.encode(bytes).map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while s.utf8.count % 4 != 0 { s += "=" }
        return s
    }
}
