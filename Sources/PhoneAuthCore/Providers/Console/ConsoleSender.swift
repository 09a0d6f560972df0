import Glibc

/// Development provider: prints each message to stderr, with the number masked.
package final class ConsoleSender: SMSSender, Sendable {
    package init() {}
    package func send(_ message: SMSMessage) -> SMSSendResult {
        let line = "[phoneauth sms] to \(PhoneNumber.mask(message.to)) (\(message.languageCode)): \(message.body)\n"
        StandardStream.error.write(line)
        return .sent(messageId: nil)
    }
}
