import PhoneAuthCore

/// A text message for the host's sender (`setSMSSender(_:)`). Its ``body`` holds the
/// code: do not log it.
public struct SMSMessage: Sendable {
    /// The number, in E.164.
    public let to: String
    /// How to send it: an SMS, a WhatsApp authentication template (whose parameter is ``code``),
    /// or a call that says ``body``.
    public let channel: DeliveryChannel
    /// The text to send (for a call, the words to say), code included.
    public let body: String
    /// The code alone, for a template that takes it as a parameter.
    public let code: String
    /// The language of the text (after the fallback chain).
    public let languageCode: String
    /// The verification whose code the text holds.
    public let verificationID: String
    /// What the code is for: `signIn`, `enroll`, `mfaSignIn` or `temporaryProof`.
    public let purpose: String
    /// `GSM-7` or `UCS-2`: the encoding the text's characters need.
    public let encoding: String
    /// How many SMS the text takes (160 GSM-7 characters or 70 UCS-2 units in one).
    public let segments: Int

    init(_ message: PhoneAuthCore.SMSMessage) {
        to = message.to
        channel = DeliveryChannel(message.channel)
        body = message.body
        code = message.code
        languageCode = message.languageCode
        verificationID = message.verificationId
        purpose = message.purpose
        encoding = message.cost.encoding.rawValue
        segments = message.cost.segments
    }
}
