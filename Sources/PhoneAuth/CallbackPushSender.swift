import Glibc
import PhoneAuthCore

/// The host's push sender: gets {appToken, tokenType, payload} as JSON; 0 means sent.
// @unchecked: the host's function and context pointer, which the header says must be callable
// from any thread.
final class CallbackPushSender: PushSender, @unchecked Sendable {
    typealias Function = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32

    private let function: Function
    private let context: UnsafeMutableRawPointer?

    init(function: Function, context: UnsafeMutableRawPointer?) {
        self.function = function
        self.context = context
    }

    func send(appToken: String, tokenType: String, payload: JSONValue) -> Bool {
        let message: JSONValue = .object([
            ("appToken", .string(appToken)), ("tokenType", .string(tokenType)), ("payload", payload),
        ])
        // The text holds the receipt's secret.
        return ABI.withJSONText(message, secret: true) { function(context, $0) == 0 } ?? false
    }
}
