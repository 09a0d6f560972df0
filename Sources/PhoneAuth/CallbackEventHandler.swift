import PhoneAuthCore

/// The host's event handler: gets one event's JSON; 0 means it took the event.
// @unchecked: the host's function and context pointer, which the header says must be callable
// from the engine's event thread.
final class CallbackEventHandler: EventHandler, @unchecked Sendable {
    typealias Function = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32

    private let function: Function
    private let context: UnsafeMutableRawPointer?

    init(function: Function, context: UnsafeMutableRawPointer?) {
        self.function = function
        self.context = context
    }

    func deliver(_ eventJSON: String) -> Bool {
        eventJSON.withCString { function(context, $0) == 0 }
    }
}
