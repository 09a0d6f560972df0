import Glibc

/// Compact JSON text of a `JSONValue`, written straight from the value: byte for byte what
/// jansson's `json_dumps(JSON_COMPACT | JSON_ENCODE_ANY)` writes for the same value (JSONWriterTests
/// holds it to that), without first building jansson's tree of it. For the JSON that does not cross
/// the C ABI (jansson writes that): tokens' claims, stored columns, HTTP bodies.
///
/// jansson's rules, kept: `"`, `\` and control characters are escaped (`\b \f \n \r \t`, else
/// `\u00XX` in upper case), everything else is written as it is (UTF-8, `/` unescaped); a real is
/// `%.17g` with `.0` added when it would read as an integer and the exponent's `+` and leading
/// zeros dropped; a non-finite real cannot be written, so it is left out of its array or object
/// (and a value that is one has no text); a key given twice keeps its first place and its last value
/// (of those with text).
package struct JSONWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>?
    private var count = 0
    private var capacity: Int

    private init(capacity: Int) {
        self.capacity = capacity
        base = malloc(capacity)?.assumingMemoryBound(to: UInt8.self)
    }

    deinit { free(base) }

    /// The text as a Swift string; nil when `value` has no text or memory ran out.
    package static func text(of value: JSONValue) -> String? {
        guard value.isWritable else { return nil }
        var writer = JSONWriter(capacity: 256)
        writer.write(value)
        return writer.string()
    }

    /// What was written, while the buffer is still the writer's.
    private borrowing func string() -> String? {
        guard let base else { return nil }
        return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }

    private mutating func write(_ value: JSONValue) {
        switch value {
        case .null: append("null")
        case let .bool(b): append(b ? "true" : "false")
        case let .int(i): write(i)
        case let .double(d): write(d)
        case let .string(s): write(s)
        case let .array(items):
            append(UInt8(ascii: "["))
            var first = true
            for item in items where item.isWritable {
                if !first { append(UInt8(ascii: ",")) }
                first = false
                write(item)
            }
            append(UInt8(ascii: "]"))
        case let .object(pairs): write(pairs)
        }
    }

    private mutating func write(_ pairs: [(String, JSONValue)]) {
        append(UInt8(ascii: "{"))
        let repeats = Self.hasRepeatedKey(pairs)
        var first = true
        for index in pairs.indices {
            var (key, value) = pairs[index]
            guard value.isWritable else { continue }
            if repeats {
                // A repeated key is written at its first place, with the last value given for it
                // (values without text are not given).
                if pairs[..<index].contains(where: { Self.same($0.0, key) && $0.1.isWritable }) { continue }
                value = pairs.last(where: { Self.same($0.0, key) && $0.1.isWritable })!.1
            }
            if !first { append(UInt8(ascii: ",")) }
            first = false
            write(key)
            append(UInt8(ascii: ":"))
            write(value)
        }
        append(UInt8(ascii: "}"))
    }

    /// Keys are the same when their bytes are, as jansson compares them (Swift's `==` would also
    /// call canonically equivalent texts the same).
    private static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    /// Keys of different lengths differ, so only keys of one length are compared.
    private static func hasRepeatedKey(_ pairs: [(String, JSONValue)]) -> Bool {
        guard pairs.count > 1 else { return false }
        for later in 1..<pairs.count {
            let key = pairs[later].0
            let length = key.utf8.count
            for earlier in 0..<later where pairs[earlier].0.utf8.count == length && same(pairs[earlier].0, key) {
                return true
            }
        }
        return false
    }

    private mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { bytes in
            append(UInt8(ascii: "\""))
            var runStart = 0
            var index = 0
            while index < bytes.count {
                // Eight bytes at a time while none of them needs an escape (most text has none).
                if index + 8 <= bytes.count,
                    !Self.anyNeedsEscape(UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
                {
                    index += 8
                    continue
                }
                let byte = bytes[index]
                if byte < 0x20 || byte == 0x22 || byte == 0x5C {
                    append(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    appendEscaped(byte)
                    runStart = index + 1
                }
                index += 1
            }
            append(UnsafeBufferPointer(rebasing: bytes[runStart...]))
            append(UInt8(ascii: "\""))
        }
    }

    /// Whether any of a word's eight bytes is a control character, `"` or a backslash (each test is
    /// exact for bytes below 0x80; a byte from 0x80 up has its high bit set, which the complement in
    /// each test clears, so it never counts).
    private static func anyNeedsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let below0x20 = (word &- ones &* 0x20) & ~word
        let isQuote = (quote &- ones) & ~quote
        let isBackslash = (backslash &- ones) & ~backslash
        return (below0x20 | isQuote | isBackslash) & highBits != 0
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case 0x22: append("\\\"")
        case 0x5C: append("\\\\")
        case 0x08: append("\\b")
        case 0x0C: append("\\f")
        case 0x0A: append("\\n")
        case 0x0D: append("\\r")
        case 0x09: append("\\t")
        default:
            let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
            append("\\u00")
            append(hex[Int(byte >> 4)])
            append(hex[Int(byte & 0xF)])
        }
    }

    private mutating func write(_ integer: Int64) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: 20 digits and a sign fit
        withUnsafeMutableBytes(of: &digits) { buffer in
            var magnitude = integer.magnitude
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if integer < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            append(UnsafeBufferPointer(rebasing: buffer.bindMemory(to: UInt8.self)[start...]))
        }
    }

    /// jansson's real: `%.17g`, then `.0` when there is neither a point nor an exponent, then the
    /// exponent without `+` or leading zeros ("1e+20" is "1e20", "1e-05" is "1e-5").
    private mutating func write(_ real: Double) {
        var buffer = [CChar](repeating: 0, count: 32)
        let length = withVaList([real]) { vsnprintf(&buffer, buffer.count, "%.17g", $0) }
        // A host's LC_NUMERIC may print another decimal separator: JSON's is a point.
        var text = buffer[0..<Int(max(0, min(length, 31)))].map {
            let byte = UInt8(bitPattern: $0)
            return (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || "-+e".utf8.contains(byte)
                ? byte : UInt8(ascii: ".")
        }
        if !text.contains(UInt8(ascii: ".")) && !text.contains(UInt8(ascii: "e")) {
            text += Array(".0".utf8)
        }
        if var start = text.firstIndex(of: UInt8(ascii: "e")).map({ $0 + 1 }) {
            if start < text.count, text[start] == UInt8(ascii: "-") { start += 1 }
            var end = start
            if end < text.count, text[end] == UInt8(ascii: "+") { end += 1 }
            while end < text.count - 1, text[end] == UInt8(ascii: "0") { end += 1 }
            text.removeSubrange(start..<end)
        }
        text.withUnsafeBufferPointer { append($0) }
    }

    private mutating func append(_ literal: StaticString) {
        append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private mutating func append(_ byte: UInt8) {
        guard reserve(1), let base else { return }
        base[count] = byte
        count += 1
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !bytes.isEmpty, reserve(bytes.count), let base, let source = bytes.baseAddress else { return }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Room for `extra` more bytes; false (and no text at all) once memory ran out.
    private mutating func reserve(_ extra: Int) -> Bool {
        guard let current = base else { return false }
        if count + extra <= capacity { return true }
        let wanted = max(capacity * 2, count + extra)
        guard let grown = realloc(current, wanted) else {
            free(current)
            base = nil
            return false
        }
        base = grown.assumingMemoryBound(to: UInt8.self)
        capacity = wanted
        return true
    }
}

extension JSONValue {
    /// Whether the value has JSON text: every value but a real that is not finite.
    fileprivate var isWritable: Bool {
        if case let .double(d) = self { return d.isFinite }
        return true
    }
}
