import CJansson
import Glibc

/// JSON text to and from `JSONValue`: read through jansson; written by jansson for the C ABI, and
/// by JSONWriter (the same text, without a tree of it) for everything else: tokens, stored
/// columns, HTTP bodies.
package enum JSONCodec {
    package struct ParseError: Error, Sendable {
        package let message: String
        package let line: Int
        package let column: Int
    }

    /// Deeper nesting than this is refused: no payload needs it, and converting it would recurse
    /// on the host's thread.
    package static let maxDepth = 64

    /// Parses one JSON value (objects, arrays and scalars alike). Invalid UTF-8 and NUL bytes are
    /// rejected by jansson with a position.
    package static func parse(_ text: String) throws(ParseError) -> JSONValue {
        try parse(bytes: Array(text.utf8))
    }

    /// Parses raw bytes (possibly invalid UTF-8) without first making a Swift string of them.
    package static func parse(bytes: UnsafeRawBufferPointer) throws(ParseError) -> JSONValue {
        var error = json_error_t()
        let flags = Int(JSON_DECODE_ANY | JSON_REJECT_DUPLICATES)
        guard let root = json_loadb(bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count, flags, &error)
        else {
            let text = withUnsafeBytes(of: &error.text) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            // jansson quotes the input near the error ("... near '123456'"): it may be a code or a
            // token, so only its description of the problem is kept.
            let message = text.ranges(of: " near ").first.map { String(text[..<$0.lowerBound]) } ?? text
            throw ParseError(message: message, line: Int(error.line), column: Int(error.column))
        }
        defer { pa_json_decref(root) }
        guard let value = value(of: root, depth: 0) else {
            throw ParseError(message: "nesting deeper than \(maxDepth) levels", line: 1, column: 1)
        }
        return value
    }

    package static func parse(bytes: [UInt8]) throws(ParseError) -> JSONValue {
        let result: Result<JSONValue, ParseError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(ParseError) -> JSONValue in try parse(bytes: buffer) }
        }
        return try result.get()
    }

    /// A whole JSON file (a configuration, an export), parsed; a failure is a `code` error that
    /// names the file and, for bad JSON, the line and column.
    package static func parse(contentsOf path: String, code: PhoneAuthError.Code) throws(PhoneAuthError) -> JSONValue {
        guard let file = fopen(path, "rb") else {
            throw PhoneAuthError(
                code, "\(path) cannot be opened: \(String(cString: strerror(errno))).",
                details: [("path", .string(path))])
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while case let n = fread(&chunk, 1, chunk.count, file), n > 0 { bytes += chunk[0..<n] }
        do {
            return try parse(bytes: bytes)
        } catch {
            throw PhoneAuthError(
                code, "\(path) is not valid JSON: \(error.message) (line \(error.line), column \(error.column)).",
                details: [
                    ("path", .string(path)), ("line", .int(Int64(error.line))), ("column", .int(Int64(error.column))),
                ])
        }
    }

    /// Compact JSON text of a value ("null" for a value that has none: a real that is not finite).
    package static func serialize(_ value: JSONValue) -> String {
        JSONWriter.text(of: value) ?? "null"
    }

    /// jansson's text of a value, as a Swift string: for text stored now and handed across the C
    /// ABI as it is later (an event's payload).
    package static func janssonText(_ value: JSONValue) -> String {
        guard let text = serializeToCString(value) else { return "null" }
        defer { free(text) }
        return String(cString: text)
    }

    /// Compact JSON text as a malloc'd C string, for handing across the C ABI: written by
    /// jansson, which produces every JSON byte that crosses the ABI (DESIGN.md), from a tree of it.
    package static func serializeToCString(_ value: JSONValue) -> UnsafeMutablePointer<CChar>? {
        guard let json = make(value) else { return nil }
        defer { pa_json_decref(json) }
        // json_dumpb into a buffer on the stack, then one exact copy: json_dumps grows its buffer
        // from 16 bytes by doubling and copies the text once more at the end. json_dumpb gives the
        // length the text needs even when it does not fit, so a longer text is written again.
        let flags = Int(JSON_COMPACT | JSON_ENCODE_ANY)
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { stack in
            let length = json_dumpb(json, stack.baseAddress, stack.count, flags)
            // The text may be a secret's (an SMS holds its code): none of it stays on the stack.
            defer { explicit_bzero(stack.baseAddress!, min(length, stack.count)) }
            guard length > 0, let text = malloc(length + 1)?.assumingMemoryBound(to: CChar.self) else { return nil }
            if length <= stack.count {
                text.update(from: stack.baseAddress!, count: length)
            } else if json_dumpb(json, text, length, flags) != length {
                free(text)
                return nil
            }
            text[length] = 0
            return text
        }
    }

    /// nil when nested deeper than maxDepth.
    static func value(of json: UnsafeMutablePointer<json_t>, depth: Int) -> JSONValue? {
        guard depth <= maxDepth else { return nil }
        switch pa_json_typeof(json) {
        case Int32(JSON_OBJECT.rawValue):
            var pairs: [(String, JSONValue)] = []
            var iter = json_object_iter(json)
            while let it = iter {
                let key = String(cString: json_object_iter_key(it))
                if let child = json_object_iter_value(it) {
                    guard let converted = value(of: child, depth: depth + 1) else { return nil }
                    pairs.append((key, converted))
                }
                iter = json_object_iter_next(json, it)
            }
            return .object(pairs)
        case Int32(JSON_ARRAY.rawValue):
            var items: [JSONValue] = []
            for i in 0..<json_array_size(json) {
                guard let child = json_array_get(json, i), let converted = value(of: child, depth: depth + 1) else {
                    return nil
                }
                items.append(converted)
            }
            return .array(items)
        case Int32(JSON_STRING.rawValue):
            let length = json_string_length(json)
            guard let bytes = json_string_value(json) else { return .string("") }
            return .string(
                bytes.withMemoryRebound(to: UInt8.self, capacity: length) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                })
        case Int32(JSON_INTEGER.rawValue): return .int(Int64(json_integer_value(json)))
        case Int32(JSON_REAL.rawValue): return .double(json_real_value(json))
        case Int32(JSON_TRUE.rawValue): return .bool(true)
        case Int32(JSON_FALSE.rawValue): return .bool(false)
        default: return .null
        }
    }

    /// A Swift string is always valid UTF-8, so jansson's re-validation of every string and key
    /// (the `_nocheck` variants skip it) would only cost time.
    static func make(_ value: JSONValue) -> UnsafeMutablePointer<json_t>? {
        switch value {
        case .null: return pa_json_null()
        case let .bool(b): return b ? pa_json_true() : pa_json_false()
        case let .int(i): return json_integer(json_int_t(i))
        case let .double(d): return json_real(d)
        case let .string(s):
            return s.withUTF8Bytes { json_stringn_nocheck($0, $1) }
        case let .array(items):
            guard let array = json_array() else { return nil }
            for item in items { if let child = make(item) { json_array_append_new(array, child) } }
            return array
        case let .object(pairs):
            guard let object = json_object() else { return nil }
            for (key, child) in pairs {
                guard let childJSON = make(child) else { continue }
                _ = key.withUTF8Bytes { json_object_setn_new_nocheck(object, $0, $1, childJSON) }
            }
            return object
        }
    }
}
