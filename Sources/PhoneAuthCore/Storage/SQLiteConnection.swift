import CSQLite

/// One result row of a SQLite statement.
struct SQLiteRow: SQLRow {
    let statement: OpaquePointer

    func int(_ i: Int32) -> Int64 { sqlite3_column_int64(statement, i) }
    func isNull(_ i: Int32) -> Bool { sqlite3_column_type(statement, i) == SQLITE_NULL }
    func text(_ i: Int32) -> String {
        guard let p = sqlite3_column_text(statement, i) else { return "" }
        return String(
            decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(statement, i))), as: UTF8.self)
    }
    func blob(_ i: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, i))
        guard count > 0, let p = sqlite3_column_blob(statement, i) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: count))
    }
    var columnCount: Int32 { sqlite3_column_count(statement) }
    func columnName(_ i: Int32) -> String { sqlite3_column_name(statement, i).map { String(cString: $0) } ?? "" }
    func value(_ i: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, i) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .int(int(i))
        case SQLITE_BLOB: return .blob(blob(i))
        default: return .text(text(i))
        }
    }
}

/// A single SQLite connection with a statement cache. Not thread-safe: its owner serialises use.
/// Errors carry SQLite's message, never the bound values (phone numbers, hashes).
final class SQLiteConnection: SQLConnection {
    static let dialect = SQLDialect.sqlite
    let isHealthy = true
    var roundTrips = 0
    var recordedEvents = false
    var pumpingCredits: [(keys: String, at: Timestamp)] = []
    private let db: OpaquePointer
    private var cache: [String: OpaquePointer] = [:]
    /// The cache's front, by where the SQL text's bytes are: the engine's SQL is mostly string
    /// literals, whose bytes stay at one address, so a lookup costs no hash of the whole text.
    /// The text is still compared (a cheap identity test for a literal), so a heap address reused
    /// by other text cannot mislead it; built texts would fill it, hence the bound.
    private var byAddress: [UInt: (sql: String, statement: OpaquePointer)] = [:]

    init(path: String, synchronous: EngineConfig.Synchronous, create: Bool = true) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close(handle)
            throw StorageFailure(.other, "The database \(path) cannot be opened: \(message).")
        }
        db = handle
        sqlite3_busy_timeout(db, 10_000)
        sqlite3_extended_result_codes(db, 1)
        do {
            try execute("PRAGMA journal_mode=WAL")
            // Checkpoint every 10,000 pages (about 40 MB of WAL) rather than 1,000: pages written
            // by many transactions are copied back once, with one fsync, instead of ten times.
            try execute("PRAGMA wal_autocheckpoint=10000")
            // No memory-mapped reads: with them SQLite looks each page up in the WAL's index before
            // its own cache, and the pages every flow writes (counters, verification rows) fill
            // that index with frames of their own, so each look-up walks longer chains until the
            // checkpoint: about 50 K instructions a flow between checkpoints (callgrind). Without,
            // a page in the cache is read from it.
            try execute("PRAGMA mmap_size=0")
            try execute("PRAGMA synchronous=\(synchronous == .full ? "FULL" : "NORMAL")")
            try execute("PRAGMA foreign_keys=ON")
        } catch {
            close()
            throw StorageFailure(
                .other, "The database \(path) cannot be used: \((error as? StorageFailure)?.message ?? "\(error)")")
        }
    }

    func close() {
        for statement in cache.values { sqlite3_finalize(statement) }
        cache.removeAll()
        byAddress.removeAll()
        sqlite3_close_v2(db)
    }

    private func failure(_ what: String) -> StorageFailure {
        StorageFailure(.other, "Database \(what) failed: \(String(cString: sqlite3_errmsg(db))).")
    }

    func execute(_ sql: String) throws {
        roundTrips += 1
        var message: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(db, sql, nil, nil, &message) != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(message)
            throw StorageFailure(.other, "Database statement failed: \(text).")
        }
    }

    private func prepared(_ sql: String, _ args: [SQLValue]) throws -> OpaquePointer {
        roundTrips += 1
        let statement: OpaquePointer
        let address = sql.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) } ?? 0
        if let front = byAddress[address], front.sql == sql {
            statement = front.statement
        } else if let cached = cache[sql] {
            statement = cached
            remember(cached, for: sql, at: address)
        } else {
            var made: OpaquePointer?
            guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &made, nil) == SQLITE_OK, let made
            else {
                throw failure("prepare")
            }
            cache[sql] = made
            statement = made
            remember(made, for: sql, at: address)
        }
        for (i, arg) in args.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch arg {
            case let .int(v): rc = sqlite3_bind_int64(statement, index, v)
            case let .text(v):
                rc = v.withUTF8Bytes { sqlite3_bind_text(statement, index, $0, Int32($1), pa_sqlite_transient()) }
            case let .blob(v):
                rc = v.withUnsafeBytes {
                    sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), pa_sqlite_transient())
                }
            case .null: rc = sqlite3_bind_null(statement, index)
            }
            guard rc == SQLITE_OK else { sqlite3_reset(statement); throw failure("bind") }
        }
        return statement
    }

    private func remember(_ statement: OpaquePointer, for sql: String, at address: UInt) {
        if byAddress.count >= 256 { byAddress.removeAll(keepingCapacity: true) }
        byAddress[address] = (sql, statement)
    }

    /// Runs a statement that returns no rows; returns the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ args: [SQLValue]) throws -> Int {
        let statement = try prepared(sql, args)
        defer { sqlite3_reset(statement); sqlite3_clear_bindings(statement) }
        let rc = sqlite3_step(statement)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw failure("write") }
        return Int(sqlite3_changes(db))
    }

    /// Calls `each` for every row.
    func rows(_ sql: String, _ args: [SQLValue], _ each: (SQLiteRow) throws -> Void) throws {
        let statement = try prepared(sql, args)
        defer { sqlite3_reset(statement); sqlite3_clear_bindings(statement) }
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw failure("read") }
            try each(SQLiteRow(statement: statement))
        }
    }

    /// Runs `body` in a write transaction (BEGIN IMMEDIATE, so concurrent writers from other
    /// processes queue on the busy timeout instead of failing at commit), rolling back on error.
    /// Every SQLite write transaction is queued already: `queue` and `rowLocksSuffice` change nothing.
    func transaction<T>(queue: String?, rowLocksSuffice: Bool, _ body: () throws -> T) throws -> T {
        try run("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            _ = try? run("ROLLBACK")
            throw error
        }
    }

    /// Reads run outside a transaction, as they always have with SQLite: each statement sees one
    /// committed state, and the engine's writes are serialised on its one connection.
    func snapshot<T>(_ body: () throws -> T) throws -> T { try body() }

    /// BEGIN IMMEDIATE already keeps every other writer out.
    func tryTransactionLock(_ key: String) throws -> Bool { true }
}
