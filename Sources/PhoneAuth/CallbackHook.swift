import PhoneAuthCore

/// The host's blocking hook: gets the event as JSON and writes its response (or
/// `{"error": {...}}`) into a buffer the library owns; a non-zero return or an unreadable answer
/// is a failure, which the hook's `onError` decides.
// @unchecked: the host's function and context pointer, which the header says must be callable
// from any thread.
final class CallbackHook: BlockingHook, @unchecked Sendable {
    typealias Function =
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int) -> Int32

    static let responseSize = 8192

    private let function: Function
    private let context: UnsafeMutableRawPointer?

    init(function: Function, context: UnsafeMutableRawPointer?) {
        self.function = function
        self.context = context
    }

    func call(_ event: JSONValue, name: HookName) -> JSONValue? {
        var response = [CChar](repeating: 0, count: Self.responseSize)
        let status = ABI.withJSONText(event) { text in
            response.withUnsafeMutableBufferPointer { function(context, text, $0.baseAddress, $0.count) }
        }
        response[Self.responseSize - 1] = 0
        guard status == 0 else { return nil }
        return try? JSONCodec.parse(String(cString: response))
    }
}
