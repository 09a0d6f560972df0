/// What `phoneauth status` and getStatus show of the store: its size and recent SMS, read in one snapshot.
package struct StoreStatus: Sendable {
    package var schemaVersion: Int
    package var users: Int64
    package var liveSessions: Int64
    package var smsQueued: Int64
    package var smsSentLastHour: Int64
    package var smsFailedLastHour: Int64
    /// Events recorded and not yet delivered, and when the oldest of them was recorded.
    package var eventsPending: Int64 = 0
    package var oldestPendingEvent: Timestamp? = nil
}
