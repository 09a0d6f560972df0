package struct VerificationStatus: Sendable {
    /// One delivery of the code: the first, a resend by another channel, or a fallback.
    package struct Delivery: Sendable {
        package var channel: Channel
        /// pending, sent, delivered, failed
        package var status: String
        package var provider: String?
        package var messageId: String?
        package var error: String?
        /// The provider's own error code, from its answer or its receipt.
        package var errorCode: String?
    }

    /// A verification's state as callers see it: its stored one, except that an active one past
    /// its expiry is expired (its column keeps active: expiry is a matter of time).
    package enum State: String, Sendable, CaseIterable {
        case active, expired, dead, used, replaced

        init(_ stored: VerificationState, expired: Bool) {
            switch stored {
            case .active: self = expired ? .expired : .active
            case .dead: self = .dead
            case .used: self = .used
            case .replaced: self = .replaced
            }
        }
    }

    package var id: String
    package var phone: String
    package var state: State
    package var expiresAt: Timestamp
    /// pending, sent, failed, or none (test numbers)
    package var delivery: String
    package var attempts: Int
    /// The provider of the last attempt, the ID it gave the message, and why the last attempt failed.
    package var provider: String?
    package var providerMessageId: String?
    package var deliveryError: String?
    /// The channel of the current delivery (nil for test numbers).
    package var channel: Channel?
    /// Every delivery, in order; the last is the current one.
    package var deliveries: [Delivery]
}
