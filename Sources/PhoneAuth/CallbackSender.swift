import Glibc
import PhoneAuthCore

/// The `callback` SMS provider: hands each message, as JSON, to the host's C function.
// @unchecked: the host's function and context pointer, which the header says must be callable
// from any thread.
final class CallbackSender: SMSSender, @unchecked Sendable {
    typealias Function = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32

    private let function: Function
    private let context: UnsafeMutableRawPointer?

    init(function: Function, context: UnsafeMutableRawPointer?) {
        self.function = function
        self.context = context
    }

    func send(_ message: SMSMessage) -> SMSSendResult {
        let json: JSONValue = .object([
            ("to", .string(message.to)),
            ("channel", .string(message.channel.rawValue)),
            ("body", .string(message.body)),
            ("code", .string(message.code)),
            ("languageCode", .string(message.languageCode)),
            ("verificationId", .string(message.verificationId)),
            ("purpose", .string(message.purpose)),
            ("encoding", .string(message.cost.encoding.rawValue)),
            ("segments", .int(Int64(message.cost.segments))),
        ])
        // The text and `code` hold the code.
        let accepted = ABI.withJSONText(json, secret: true) { function(context, $0) == 0 } ?? false
        return accepted ? .sent(messageId: nil) : .retryLater(DeliveryProblem(.rejected))
    }
}
