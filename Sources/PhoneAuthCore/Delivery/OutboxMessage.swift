package struct OutboxMessage: Sendable {
    package var verificationId: String
    package var phone: String
    package var languageCode: String
    package var sealedBody: [UInt8]
    package var attempts: Int
    package var purpose: VerificationPurpose
    /// When its code expires: after that the message is not worth sending.
    package var expiresAt: Timestamp
}
