package struct OutboxMessage: Sendable {
    package var verificationId: String
    package var phone: String
    package var languageCode: String
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
