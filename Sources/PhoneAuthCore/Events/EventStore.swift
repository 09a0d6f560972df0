/// The events outbox. Part of `Store`; SQLStore implements it in this folder's SQL.
package protocol EventStore: AnyObject, Sendable {
    /// Leases up to `limit` due events, each the first undelivered one of its subject (so a
    /// user's events are delivered in order), so no other engine delivers them meanwhile.
    func claimDueEvents(now: Timestamp, limit: Int, lease: DeliveryLease) throws -> [PendingEvent]
    /// Deletes a delivered event (`failure` nil), or makes a failed one due again at its retry
    /// time (the subject's later events not before it); only while `leaseOwner` still holds it.
    func recordEventDelivery(
        _ event: PendingEvent, failure: (retryAt: Timestamp, error: String)?, leaseOwner: String)
        throws
    /// Gives leased events back, due now, untried (the engine is closing, or its lease is short).
    func releaseEvents(ids: [String], now: Timestamp, leaseOwner: String) throws
    /// When the earliest event falls due, if any.
    func nextEventDue() throws -> Timestamp?
    /// Calls `ring` after each commit of a transaction that recorded events (on its thread).
    func onEventsRecorded(_ ring: @escaping @Sendable () -> Void)
    /// Undelivered events: how many, and when the oldest was recorded.
    func pendingEvents() throws -> (count: Int64, oldest: Timestamp?)
    /// Undelivered events after `afterId` in ID order, at most `limit`.
    func listPendingEvents(afterId: String?, subject: String?, limit: Int) throws -> [WaitingEvent]
    /// Deletes an undelivered event, making those of its subject it held back due now; false when
    /// there is none with this ID.
    func dropPendingEvent(id: String, now: Timestamp) throws -> Bool
}
