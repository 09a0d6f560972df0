/// Why a delivery attempt failed, or a delivery ended unsent, as `verifications.delivery_error`
/// and `deliveries.error` hold it and the `reason` of deliveryFailed and providerSkipped tells it.
package enum DeliveryFailureReason: String, Sendable, CaseIterable {
    /// The provider said to wait (HTTP 429, or its own code for it): tried again later.
    case rateLimited
    /// The provider failed (HTTP 5xx, or its own code for it): tried again later.
    case serverError
    /// No answer in time, or no connection: tried again later.
    case timeout, connectionFailed
    /// The provider's TLS certificate or our TLS settings are wrong: the next provider gets it.
    case tlsError
    /// The number cannot receive the message: never tried again.
    case invalidNumber
    /// The provider refused us (credentials, account, an answer we cannot read): the next
    /// provider gets it.
    case providerFault
    /// The host's sender said no.
    case rejected
    /// The stored code could not be opened (sealed under a key the engine no longer has).
    case unreadable
    /// Its code expired before it was sent.
    case expired
    /// Its verification was used, locked or replaced (or its tenant deleted) before its message went.
    case verificationEnded
    /// Every provider of its channel was being skipped, and it went by its fallback channel.
    case providersSkipped
    /// A provider's receipt said it never arrived.
    case notDelivered
    /// No receipt said it arrived within `channels.fallback.afterSeconds`, so the same code went by
    /// the fallback channel (told in deliveryFailed only: the delivery itself stays `sent`).
    case noReceipt
}
