/// What became of an attempt to deliver a message, as the outbox records it.
package enum DeliveryOutcome: Sendable {
    case sent(verificationId: String, provider: String?, messageId: String?)
    /// Counts as an attempt; tried again at `retryAt` unless the attempts are used up.
    case failed(verificationId: String, provider: String?, reason: String, retryAt: Timestamp)
    /// The number cannot receive SMS: never tried again.
    case undeliverable(verificationId: String, provider: String?, reason: String)
    /// No provider could be tried: not an attempt; due again at `until`.
    case deferred(verificationId: String, until: Timestamp)

    package var verificationId: String {
        switch self {
        case let .sent(id, _, _), let .failed(id, _, _, _), let .undeliverable(id, _, _), let .deferred(id, _):
            return id
        }
    }
}

extension DeliveryOutcome {
    /// What came of a delivery given up, once recorded.
    package enum Followed: Sendable {
        /// Its verification's next delivery, by the fallback channel, due now.
        case fellBack(OutboxMessage)
        /// No fallback (none configured, already spent, or refused by a limit): the code was not delivered.
        case failed(OutboxMessage)
    }
}
