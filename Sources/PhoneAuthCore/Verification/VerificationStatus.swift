package struct VerificationStatus: Sendable {
    package var id: String
    package var phone: String
    package var state: String
    package var expiresAt: Timestamp
    /// pending, sent, failed, or none (test numbers)
    package var delivery: String
    package var attempts: Int
    /// The provider of the last attempt, the ID it gave the message, and why the last attempt failed.
    package var provider: String?
    package var providerMessageId: String?
    package var deliveryError: String?
}
