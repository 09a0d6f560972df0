import Glibc

/// The store's logic, written once over a SQL driver: every operation is one transaction, and
/// SQLite and PostgreSQL differ only in their `SQLConnection` (and its `SQLDialect`). With
/// SQLite the pool holds one connection (SQLite has one writer at a time anyway); with
/// PostgreSQL it holds several, and transactions that conflict with another engine's are run
/// again.
final class SQLStore<Connection: SQLConnection>: Store, @unchecked Sendable {
    let pool: ConnectionPool<Connection>
    var dialect: SQLDialect { Connection.dialect }
    /// A transaction that keeps conflicting is reported after this many tries.
    static var maxTries: Int { 10 }

    init(pool: ConnectionPool<Connection>) {
        self.pool = pool
    }

    package func close() { pool.close() }

    /// Runs `body` in a write transaction, again if it conflicted with another one (after a
    /// short random pause, so the contenders spread out) or met a connection that had broken.
    func write<T>(queue: String? = nil, rowLocksSuffice: Bool = false, _ body: (Connection) throws -> T) throws -> T {
        try retrying(transaction: true) { db in try db.transaction(queue: queue, rowLocksSuffice: rowLocksSuffice) { try body(db) } }
    }

    /// A write of a single statement, which is atomic on its own: no BEGIN and COMMIT around it.
    func writeSingle<T>(_ body: (Connection) throws -> T) throws -> T {
        try retrying(transaction: true, body)
    }

    func read<T>(_ body: (Connection) throws -> T) throws -> T {
        try retrying(transaction: false) { db in try db.snapshot { try body(db) } }
    }

    private func retrying<T>(transaction: Bool, _ body: (Connection) throws -> T) throws -> T {
        var conflicts = 0, staleConnections = 0
        while true {
            do {
                let result = try pool.withConnection(body)
                if transaction { pool.count(transactions: 1, retries: conflicts + staleConnections) }
                return result
            } catch let failure as StorageFailure {
                switch failure.kind {
                case .conflict where conflicts + 1 < Self.maxTries:
                    conflicts += 1
                    // Full jitter over a window that doubles from 1 ms to 128 ms.
                    usleep(UInt32.random(in: 0...UInt32(1000 << min(conflicts - 1, 7))))
                case .stale where staleConnections <= pool.size:
                    staleConnections += 1
                default:
                    throw failure.asPhoneAuthError
                }
            }
        }
    }

    /// Statements, transactions and retries so far (for benchmarks and monitoring).
    package func statistics() -> StoreStatistics {
        let s = pool.currentStatistics
        return StoreStatistics(driver: dialect.name, poolSize: s.size, transactions: s.transactions, retries: s.retries,
                               roundTrips: s.roundTrips)
    }

    // MARK: Keys

    static var secretColumns: String { "SELECT kid, kind, sealed, created_at, retire_at FROM secrets" }

    static func storedSecret(_ row: Connection.Row) -> StoredSecret {
        StoredSecret(kid: row.text(0), kind: row.text(1), sealed: row.blob(2), createdAt: Timestamp(milliseconds: row.int(3)),
                     retireAt: row.optionalInt(4).map { Timestamp(milliseconds: $0) })
    }

    package func secrets() throws -> [StoredSecret] {
        try read { db in
            var result: [StoredSecret] = []
            try db.rows(Self.secretColumns + " ORDER BY created_at, kid") { result.append(Self.storedSecret($0)) }
            return result
        }
    }

    package func addSecretIfNoneOfKind(_ secret: StoredSecret) throws -> [StoredSecret] {
        try write { db in
            let existing = try db.row("SELECT count(*) FROM secrets WHERE kind = ? AND retire_at IS NULL", [.text(secret.kind)]) { $0.int(0) } ?? 0
            if existing == 0 {
                try insert(secret, in: db)
                // A key of another algorithm made current (a configuration change) is a rotation.
                if Self.signingKinds.contains(secret.kind) { try scheduleRetirement(except: secret.kid, at: secret.retireAtOfOthers, in: db) }
            }
            var result: [StoredSecret] = []
            try db.rows(Self.secretColumns + " WHERE kind = ? AND retire_at IS NULL ORDER BY created_at, kid", [.text(secret.kind)]) {
                result.append(Self.storedSecret($0))
            }
            return result
        }
    }

    static var signingKinds: Set<String> { Set(EngineConfig.SigningAlgorithm.allCases.map(\.rawValue)) }

    /// "kind IN (?, …)" for the signing keys' kinds, and its arguments.
    private static var signingKindFilter: (sql: String, args: [SQLValue]) {
        let kinds = signingKinds.sorted()
        return ("kind IN (\(kinds.map { _ in "?" }.joined(separator: ", ")))", kinds.map { .text($0) })
    }

    /// Adds a signing key that signs from now on and gives every other current one `retireOthersAt`.
    /// With `ifNewestBefore`, only when the newest current signing key is older than that (so
    /// engines that all find a rotation due make exactly one). Whether it was added.
    package func rotateSigningKey(_ secret: StoredSecret, retireOthersAt: Timestamp, ifNewestBefore: Timestamp?) throws -> Bool {
        try write { db in
            if let threshold = ifNewestBefore {
                let kinds = Self.signingKindFilter
                let newest = try db.row("SELECT max(created_at) FROM secrets WHERE retire_at IS NULL AND \(kinds.sql)",
                                        kinds.args) { $0.optionalInt(0) } ?? nil
                if let newest, newest >= threshold.milliseconds { return false }
            }
            try insert(secret, in: db)
            try scheduleRetirement(except: secret.kid, at: retireOthersAt, in: db)
            return true
        }
    }

    /// Ends a signing key at `now` (it stops verifying at once); whether it was live.
    package func retireSigningKey(kid: String, now: Timestamp) throws -> Bool {
        try write { db in
            let kinds = Self.signingKindFilter
            return try db.run("UPDATE secrets SET retire_at = ? WHERE kid = ? AND \(kinds.sql) AND (retire_at IS NULL OR retire_at > ?)",
                              [.int(now.milliseconds), .text(kid)] + kinds.args + [.int(now.milliseconds)]) == 1
        }
    }

    private func insert(_ secret: StoredSecret, in db: Connection) throws {
        try db.run("INSERT INTO secrets (kid, kind, sealed, created_at) VALUES (?, ?, ?, ?)",
                   [.text(secret.kid), .text(secret.kind), .blob(secret.sealed), .int(secret.createdAt.milliseconds)])
    }

    private func scheduleRetirement(except kid: String, at time: Timestamp?, in db: Connection) throws {
        guard let time else { return }
        let kinds = Self.signingKindFilter
        try db.run("UPDATE secrets SET retire_at = ? WHERE retire_at IS NULL AND kid <> ? AND \(kinds.sql)",
                   [.int(time.milliseconds), .text(kid)] + kinds.args)
    }

    static func optional(_ text: String?) -> SQLValue { text.map { .text($0) } ?? .null }
    static func optional(_ value: (some RawRepresentable<String>)?) -> SQLValue { value.map { .text($0) } ?? .null }

    package func purge(verificationsExpiredBefore before: Timestamp, sessionsEndedBefore ended: Timestamp) throws {
        // Deleting what no one uses any more decides nothing: it need not join serializable
        // conflict tracking.
        try write(rowLocksSuffice: true) { db in
            // One engine at a time: the others' purges would only wait for this one's row locks.
            guard try db.tryTransactionLock("purge") else { return }
            // Expired before `before` means created before it: the time-ordered key bounds the scan.
            try db.run("DELETE FROM verifications WHERE id < ? AND expires_at < ? AND delivery NOT IN ('pending', 'sending')",
                       [.text(SortableID.prefix(before)), .int(before.milliseconds)])
            try db.run("DELETE FROM sessions WHERE revoked_at < ?", [.int(ended.milliseconds)])
            try db.run("DELETE FROM mfa_sessions WHERE id < ? AND expires_at < ?", [.text(SortableID.prefix(before)), .int(before.milliseconds)])
            // Used captcha tokens are keyed by their hash, not by time: this one scans (a small table).
            try db.run("DELETE FROM app_checks WHERE expires_at < ?", [.int(before.milliseconds)])
            // A counter is read until two of its windows have passed: daily ones are kept a day
            // longer than `before` (a day ago), the hourly and shorter ones until `before`.
            try db.run("DELETE FROM counters WHERE bucket < ?", [.int(before.milliseconds - LimitWindow.dayMilliseconds)])
            try db.run("DELETE FROM counters WHERE bucket < ? AND scope NOT LIKE 'project:%' AND scope NOT LIKE 'region:%'",
                       [.int(before.milliseconds)])
        }
    }
}
