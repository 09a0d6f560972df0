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
        // An unknown name is reported before the parameters are read, whatever they hold.
        guard Engine.operation(named: method) != nil else { return engine.call(method, params: .object([])) }
        let parsed: JSONValue
        do { parsed = try ABI.parse(params, what: "parameters") } catch {
            let failure = PhoneAuthError.from(error, during: method)
            return (failure.code.status, failure.jsonValue)
        }
        return engine.call(method, params: parsed)
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
            throw PhoneAuthError(
                .invalidArgument, "The \(what) text is larger than \(maxInputBytes) bytes.",
                details: [("limit", .int(Int64(maxInputBytes)))])
        }
        do {
            return try JSONCodec.parse(bytes: UnsafeRawBufferPointer(start: text, count: length))
        } catch {
            throw PhoneAuthError(
                .invalidArgument,
                "The \(what) text is not valid JSON: \(error.message) (line \(error.line), column \(error.column)).",
                details: [("line", .int(Int64(error.line))), ("column", .int(Int64(error.column)))])
        }
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

    /// A host callback that answers: it gets `request` as JSON text and writes a NUL-terminated
    /// answer into a buffer of `size` bytes the library owns.
    typealias AnsweringFunction =
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int) -> Int32

    /// The callback's answer, parsed; nil when it returned non-zero or wrote what is not JSON.
    static func ask(
        _ function: AnsweringFunction, _ context: UnsafeMutableRawPointer?, _ request: JSONValue, size: Int
    ) -> JSONValue? {
        var response = [CChar](repeating: 0, count: size)
        let status = withJSONText(request) { text in
            response.withUnsafeMutableBufferPointer { function(context, text, $0.baseAddress, $0.count) }
        }
        response[size - 1] = 0
        guard status == 0 else { return nil }
        return try? JSONCodec.parse(response.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    static func write(_ value: JSONValue, to out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) {
        guard let out else { return }
        out.pointee = JSONCodec.serializeToCString(value)
    }
}
