import Glibc
import PhoneAuthCore

/// The log sink: hands each event, as JSON, to the host's C function.
// @unchecked: the host's function and context pointer, which the header says must be callable
// from any thread.
final class CallbackEventSink: EventSink, @unchecked Sendable {
    typealias Function = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void

    private let function: Function
    private let context: UnsafeMutableRawPointer?

    init(function: Function, context: UnsafeMutableRawPointer?) {
        self.function = function
        self.context = context
    }

    func record(_ event: JSONValue) {
        _ = ABI.withJSONText(event) { function(context, $0) }
    }
}
