/// The outbox: SMS waiting, leased, sent or given up.
/// Part of `Store`; SQLStore implements it in this folder's SQL (see Storage/Store.swift).
package protocol OutboxStore: AnyObject, Sendable {
    /// Leases up to `limit` messages due for delivery so no other worker sends them meanwhile.
    /// A sent message awaiting its receipt past its time is claimed as its fallback (see
    /// `fallback`), and returned among `unconfirmed` too, to be told of.
    func claimDueMessages(
        now: Timestamp, limit: Int, lease: DeliveryLease, fallback: FallbackPolicy
    ) throws -> (messages: [OutboxMessage], unconfirmed: [UnconfirmedDelivery])
    /// Records outcomes of messages `leaseOwner` still holds (others are left as they are): a
    /// sent message awaits its receipt (or its fallback's time); a failed one is due again at its
    /// retry time; one given up (after `maxAttempts`, or undeliverable) falls back when it can.
    /// Returns the fallback messages those given up made due.
    func recordDeliveries(
        _ outcomes: [(outcome: DeliveryOutcome, message: OutboxMessage)], now: Timestamp, maxAttempts: Int,
        leaseOwner: String, fallback: FallbackPolicy
    ) throws -> [OutboxMessage]
    /// Applies receipts of `provider` (see SQLStore+Receipts).
    func applyReceipts(
        _ receipts: [DeliveryReceipt], provider: String, now: Timestamp, fallback: FallbackPolicy
    )
        throws -> [AppliedReceipt]
    /// When the earliest pending message becomes due, if any.
    func nextDeliveryDue() throws -> Timestamp?
    /// Gives leased messages back, due now, for messages this engine will not deliver after all;
    /// the IDs of those it found (still leased to `leaseOwner` and unsent).
    @discardableResult
    func releaseLeases(verificationIds: [String], now: Timestamp, leaseOwner: String) throws -> [String]
    /// Extends the leases of messages this engine still holds (queued, or being sent).
    func renewLeases(verificationIds: [String], lease: DeliveryLease) throws
}
