import Glibc

/// The store's logic, written once over a SQL driver: every operation is one transaction, and
/// SQLite and PostgreSQL differ only in their `SQLConnection` (and its `SQLDialect`). With
/// SQLite the pool holds one connection (SQLite has one writer at a time anyway); with
/// PostgreSQL it holds several, and transactions that conflict with another engine's are run
/// again.
///
/// Called through the store protocols, a generic class's methods run unspecialised, looking up
/// generic metadata and calling the driver through witness tables at run time: the operations on
/// a sign-in's path (starting a verification, redeeming it, recording deliveries) carry
/// `@_specialize(where Connection == SQLiteConnection)`, so that with SQLite they and what they
/// call run specialised (~28 K instructions a flow less, callgrind).
final class SQLStore<Connection: SQLConnection>: Store, Sendable {
    let pool: ConnectionPool<Connection>
    var dialect: SQLDialect { Connection.dialect }
    /// A transaction that keeps conflicting is reported after this many tries.
    static var maxTries: Int { 10 }

    /// Events are recorded (in each change's transaction) when set: the `events` configuration.
    let events: EventSettings?
    /// Rung after a transaction that recorded events commits (see onEventsRecorded).
    let eventBell = EventBell()

    init(pool: ConnectionPool<Connection>, events: EventSettings? = nil) {
        self.pool = pool
        self.events = events
    }

    package func close() { pool.close() }

    /// Runs `body` in a write transaction, again if it conflicted with another one (after a
    /// short random pause, so the contenders spread out) or met a connection that had broken.
    func write<T>(queue: String? = nil, rowLocksSuffice: Bool = false, _ body: (Connection) throws -> T) throws -> T {
        var recorded = false
        var credits: [(keys: String, at: Timestamp)] = []
        let result = try retrying(transaction: true) { db in
            db.recordedEvents = false
            db.pumpingCredits = []
            let result = try db.transaction(queue: queue, rowLocksSuffice: rowLocksSuffice) { try body(db) }
            recorded = db.recordedEvents
            credits = db.pumpingCredits
            return result
        }
        if recorded { eventBell.ring() }
        if !credits.isEmpty { creditAfterCommit(credits) }
        return result
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
        return StoreStatistics(
            driver: dialect.name, poolSize: s.size, transactions: s.transactions, retries: s.retries,
            roundTrips: s.roundTrips, busyMicroseconds: s.busyMicroseconds, waits: s.waits)
    }

    static func optional(_ text: String?) -> SQLValue { text.map { .text($0) } ?? .null }
    static func optional(_ value: (some RawRepresentable<String>)?) -> SQLValue { value.map { .text($0) } ?? .null }
}
