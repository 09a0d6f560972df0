/// The events outbox. Part of `Store`; SQLStore implements it in this folder's SQL.
package protocol EventStore: AnyObject, Sendable {
    /// Leases up to `limit` due events, each the first undelivered one of its subject (so a
    /// user's events are delivered in order), so no other engine delivers them meanwhile.
    func claimDueEvents(now: Timestamp, limit: Int, lease: DeliveryLease) throws -> [PendingEvent]
    /// Deletes delivered events, makes failed ones due at their retry time and released ones
    /// (not tried: the engine is closing) due now, for events `leaseOwner` still holds.
    func recordEventDeliveries(
        delivered: [String], failed: [(id: String, retryAt: Timestamp, error: String)], released: [String],
        now: Timestamp, leaseOwner: String) throws
    /// When the earliest event falls due, if any.
    func nextEventDue() throws -> Timestamp?
    /// Calls `ring` after each commit of a transaction that recorded events (on its thread).
    func onEventsRecorded(_ ring: @escaping @Sendable () -> Void)
    /// Undelivered events: how many, and when the oldest was recorded.
    func pendingEvents() throws -> (count: Int64, oldest: Timestamp?)
}
