/// A text message handed to a provider.
public struct SMSMessage: Sendable {
    public let to: String
    public let body: String
    public let languageCode: String
    public let verificationId: String
}

/// Delivers SMS. Called on the engine's delivery thread, one message at a time.
public protocol SMSSender: AnyObject, Sendable {
    /// true when the message was handed to the carrier; false to retry later.
    func send(_ message: SMSMessage) -> Bool
}
