/// What became of an attempt to deliver a message, as the outbox records it.
package enum DeliveryOutcome: Sendable {
    case sent(verificationId: String, provider: String?, messageId: String?)
    /// Counts as an attempt; tried again at `retryAt` unless the attempts are used up.
    case failed(verificationId: String, provider: String?, reason: DeliveryFailureReason, retryAt: Timestamp)
    /// The number cannot receive SMS: never tried again.
    case undeliverable(verificationId: String, provider: String?, reason: DeliveryFailureReason)
    /// No provider could be tried: not an attempt; due again at `until`.
    case deferred(verificationId: String, until: Timestamp)

    package var verificationId: String {
        switch self {
        case let .sent(id, _, _), let .failed(id, _, _, _), let .undeliverable(id, _, _), let .deferred(id, _):
            return id
        }
    }
}
