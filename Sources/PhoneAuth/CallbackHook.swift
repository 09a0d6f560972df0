import PhoneAuthCore

/// The host's blocking hook: gets the event as JSON and writes its response (or
/// `{"error": {...}}`) into a buffer the library owns; a non-zero return or an unreadable answer
/// is a failure, which the hook's `onError` decides.
// @unchecked: the host's function and context pointer, which the header says must be callable
// from any thread.
final class CallbackHook: BlockingHook, @unchecked Sendable {
    static let responseSize = 8192

    private let function: ABI.AnsweringFunction
    private let context: UnsafeMutableRawPointer?

    init(function: ABI.AnsweringFunction, context: UnsafeMutableRawPointer?) {
        self.function = function
        self.context = context
    }

    func call(_ event: JSONValue, name: HookName) -> JSONValue? {
        ABI.ask(function, context, event, size: Self.responseSize)
    }
}
