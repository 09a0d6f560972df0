package struct OutboxMessage: Sendable {
    package var verificationId: String
    package var phone: String
    /// The language of its SMS text (the closest the pool has to the one asked for).
    package var languageCode: String
    /// The language the caller asked for, as given (nil: none): a call or a WhatsApp template
    /// takes the closest of its own.
    package var askedLanguage: String? = nil
    /// The code, sealed (a row queued before channels holds the SMS text itself).
    package var sealedCode: [UInt8]
    package var channel: Channel
    /// Which of the verification's deliveries this is (a resend or a fallback is the next one).
    package var seq: Int
    /// The pool whose texts the message is written in.
    package var tenant: TenantID
    package var attempts: Int
    package var purpose: VerificationPurpose
    /// When its code expires: after that the message is not worth sending.
    package var expiresAt: Timestamp
}
