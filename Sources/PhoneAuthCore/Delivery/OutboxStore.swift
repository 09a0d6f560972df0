/// The outbox: SMS waiting, leased, sent or given up.
/// Part of `Store`; SQLStore implements it in this folder's SQL (see Storage/Store.swift).
package protocol OutboxStore: AnyObject, Sendable {
    /// Leases up to `limit` messages due for delivery so no other worker sends them meanwhile.
    func claimDueMessages(now: Timestamp, limit: Int, lease: DeliveryLease) throws -> [OutboxMessage]
    /// Records outcomes of messages `leaseOwner` still holds (others are left as they are): a
    /// sent or undeliverable message's body is erased; a failed one is due again at its retry
    /// time, or given up (and erased) after `maxAttempts`.
    func recordDeliveries(_ outcomes: [DeliveryOutcome], now: Timestamp, maxAttempts: Int, leaseOwner: String) throws
    /// When the earliest pending message becomes due, if any.
    func nextDeliveryDue() throws -> Timestamp?
    /// Gives leased messages back, due now, for messages this engine will not deliver after all;
    /// the IDs of those it found (still leased to `leaseOwner` and unsent).
    @discardableResult
    func releaseLeases(verificationIds: [String], now: Timestamp, leaseOwner: String) throws -> [String]
    /// Extends the leases of messages this engine still holds (queued, or being sent).
    func renewLeases(verificationIds: [String], lease: DeliveryLease) throws
}
