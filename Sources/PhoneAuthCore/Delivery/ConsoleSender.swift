import Glibc

/// Development provider: prints each message to stderr, with the number masked.
public final class ConsoleSender: SMSSender, @unchecked Sendable {
    public init() {}
    public func send(_ message: SMSMessage) -> SMSSendResult {
        let line = "[phoneauth sms] to \(PhoneNumber.mask(message.to)) (\(message.languageCode)): \(message.body)\n"
        fputs(line, stderr)
        return .sent(messageId: nil)
    }
}
