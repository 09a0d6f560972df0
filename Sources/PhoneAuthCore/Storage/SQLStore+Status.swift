/// What `phoneauth status` and getStatus show: the store's size and recent SMS, read in one snapshot.
public struct StoreStatus: Sendable {
    public var schemaVersion: Int
    public var users: Int64
    public var liveSessions: Int64
    public var smsQueued: Int64
    public var smsSentLastHour: Int64
    public var smsFailedLastHour: Int64
    /// The signing keys (kid, algorithm, created), oldest first.
    public var signingKeys: [(kid: String, algorithm: String, createdAt: Timestamp)]
}

extension SQLStore {
    public func status(now: Timestamp) throws -> StoreStatus {
        try read { db in
            func count(_ sql: String, _ args: [SQLValue] = []) throws -> Int64 { try db.row(sql, args) { $0.int(0) } ?? 0 }
            let hourAgo = SQLValue.int(now.milliseconds - 3_600_000)
            var keys: [(String, String, Timestamp)] = []
            try db.rows("SELECT kid, kind, created_at FROM secrets ORDER BY created_at, kid") { row in
                if EngineConfig.SigningAlgorithm(rawValue: row.text(1)) != nil { keys.append((row.text(0), row.text(1), Timestamp(milliseconds: row.int(2)))) }
            }
            return StoreStatus(
                schemaVersion: try Migrations.version(of: db),
                users: try count("SELECT count(*) FROM users"),
                liveSessions: try count("SELECT count(*) FROM sessions WHERE revoked_at IS NULL"),
                smsQueued: try count("SELECT count(*) FROM verifications WHERE delivery IN ('pending', 'sending')"),
                smsSentLastHour: try count("SELECT count(*) FROM verifications WHERE delivery = 'sent' AND created_at >= ?", [hourAgo]),
                smsFailedLastHour: try count("SELECT count(*) FROM verifications WHERE delivery = 'failed' AND created_at >= ?", [hourAgo]),
                signingKeys: keys)
        }
    }
}
