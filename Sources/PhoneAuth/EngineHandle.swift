import Glibc
import PhoneAuthCore

/// What a phoneauth_engine pointer points to.
final class EngineHandle {
    let engine: Engine

    init(engine: Engine) { self.engine = engine }

    static func from(_ pointer: OpaquePointer?) -> EngineHandle? {
        guard let pointer else { return nil }
        return Unmanaged<EngineHandle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    /// Runs a method and renders its result or error; returns the status and the JSON.
    func call(_ method: String, params: UnsafePointer<CChar>?) -> (Int32, JSONValue) {
        guard let handler = Methods.table[method] else {
            let error = PhoneAuthError(.unknownMethod,
                                       "There is no method named \(Echo.quoted(method, or: "so (the name is not shown: it is not a plain name)")); docs/API.md lists them.",
                                       details: Echo.isQuotable(method) ? [("method", .string(method))] : [])
            return (error.code.status, error.jsonValue)
        }
        do {
            let reader = try ObjectReader(try ABI.parse(params, what: "parameters"))
            return (0, try handler(engine, reader))
        } catch {
            let failure = ABI.phoneAuthError(error, during: method)
            return (failure.code.status, failure.jsonValue)
        }
    }
}

/// Helpers shared by the exported functions.
enum ABI {
    /// Inputs larger than this are refused before parsing.
    static let maxInputBytes = 1 << 20

    /// Parses a NUL-terminated JSON text from the host; NULL means an empty object.
    static func parse(_ text: UnsafePointer<CChar>?, what: String) throws -> JSONValue {
        guard let text else { return .object([]) }
        let length = strnlen(text, maxInputBytes + 1)
        guard length <= maxInputBytes else {
            throw PhoneAuthError(.invalidArgument, "The \(what) text is larger than \(maxInputBytes) bytes.", details: [("limit", .int(Int64(maxInputBytes)))])
        }
        do {
            return try JSONCodec.parse(bytes: UnsafeRawBufferPointer(start: text, count: length))
        } catch {
            throw PhoneAuthError(.invalidArgument, "The \(what) text is not valid JSON: \(error.message) (line \(error.line), column \(error.column)).",
                                 details: [("line", .int(Int64(error.line))), ("column", .int(Int64(error.column)))])
        }
    }

    static func phoneAuthError(_ error: Error, during method: String) -> PhoneAuthError {
        if let error = error as? PhoneAuthError { return error }
        // Other errors come from crypto or the system; their type says enough and holds no secret.
        return PhoneAuthError(.internalError, "Internal error in \(method): \(type(of: error)).")
    }

    /// Writes `value` as a new string into `out`, when the host gave one.
    /// Hands `value` to a host callback as a NUL-terminated JSON text valid only during `body`;
    /// nil if it cannot be serialized. With `secret`, the text is wiped before it is freed.
    static func withJSONText<T>(_ value: JSONValue, secret: Bool = false, _ body: (UnsafePointer<CChar>) -> T) -> T? {
        guard let text = JSONCodec.serializeToCString(value) else { return nil }
        defer {
            if secret { explicit_bzero(text, strlen(text)) }
            free(text)
        }
        return body(text)
    }

    static func write(_ value: JSONValue, to out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) {
        guard let out else { return }
        out.pointee = JSONCodec.serializeToCString(value)
    }
}
