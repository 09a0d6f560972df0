import Glibc
import PhoneAuthCore

/// The `callback` SMS provider: hands each message, as JSON, to the host's C function.
final class CallbackSender: SMSSender, @unchecked Sendable {
    typealias Function = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32

    private let function: Function
    private let context: UnsafeMutableRawPointer?

    init(function: Function, context: UnsafeMutableRawPointer?) {
        self.function = function
        self.context = context
    }

    func send(_ message: SMSMessage) -> Bool {
        let json: JSONValue = .object([
            ("to", .string(message.to)),
            ("body", .string(message.body)),
            ("languageCode", .string(message.languageCode)),
            ("verificationId", .string(message.verificationId)),
        ])
        guard let text = JSONCodec.serializeToCString(json) else { return false }
        defer {
            // The text holds the code: wipe it before giving the memory back.
            explicit_bzero(text, strlen(text))
            free(text)
        }
        return function(context, text) == 0
    }
}
