extension SQLStore {
    package func status(now: Timestamp) throws -> StoreStatus {
        try read { db in
            func count(_ sql: String, _ args: [SQLValue] = []) throws -> Int64 {
                try db.row(sql, args) { $0.int(0) } ?? 0
            }
            let hourAgo = SQLValue.int(now.milliseconds - 3_600_000)
            let (eventsPending, oldestEvent) = try pendingEvents(in: db)
            return StoreStatus(
                schemaVersion: try Migrations.version(of: db),
                users: try count("SELECT count(*) FROM users"),
                liveSessions: try count("SELECT count(*) FROM sessions WHERE revoked_at IS NULL"),
                smsQueued: try count("SELECT count(*) FROM verifications WHERE \(Self.queuedStates)"),
                smsSentLastHour: try count(
                    "SELECT count(*) FROM verifications WHERE delivery IN (?, ?, ?) AND created_at >= ?",
                    [
                        .text(DeliveryState.sent), .text(DeliveryState.awaiting), .text(DeliveryState.delivered),
                        hourAgo,
                    ]),
                smsFailedLastHour: try count(
                    "SELECT count(*) FROM verifications WHERE delivery = ? AND created_at >= ?",
                    [.text(DeliveryState.failed), hourAgo]),
                eventsPending: eventsPending, oldestPendingEvent: oldestEvent)
        }
    }
}
