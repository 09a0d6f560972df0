/// A value bound to a statement parameter.
enum SQLValue {
    case int(Int64)
    case text(String)
    case blob([UInt8])
    case null

    static func optionalText(_ text: String?) -> SQLValue { text.map { .text($0) } ?? .null }

    /// A state, kind or reason, bound as the text it is stored as.
    static func text(_ value: some RawRepresentable<String>) -> SQLValue { .text(value.rawValue) }
}

/// One result row, read by column index.
protocol SQLRow {
    func int(_ i: Int32) -> Int64
    func isNull(_ i: Int32) -> Bool
    func text(_ i: Int32) -> String
    func blob(_ i: Int32) -> [UInt8]
    var columnCount: Int32 { get }
    func columnName(_ i: Int32) -> String
    /// The column as the value that would bind it again (for copying rows between databases).
    func value(_ i: Int32) -> SQLValue
}

extension SQLRow {
    func optionalInt(_ i: Int32) -> Int64? { isNull(i) ? nil : int(i) }
    func optionalText(_ i: Int32) -> String? { isNull(i) ? nil : text(i) }
    func optionalBlob(_ i: Int32) -> [UInt8]? { isNull(i) ? nil : blob(i) }

    /// The column as the state, kind or reason whose text it holds; a text the type does not
    /// know fails as a storageError naming the column (never its value).
    func text<T: RawRepresentable<String>>(_ i: Int32, as type: T.Type) throws -> T {
        guard let value = T(rawValue: text(i)) else {
            throw StorageFailure(.other, "unexpected value in column \(columnName(i))")
        }
        return value
    }

    func optionalText<T: RawRepresentable<String>>(_ i: Int32, as type: T.Type) throws -> T? {
        isNull(i) ? nil : try text(i, as: type)
    }
}

/// The SQL a dialect writes its own way. The store's statements are written once with `?`
/// placeholders; these fragments fill in where SQLite and PostgreSQL differ.
struct SQLDialect: Sendable {
    let name: String
    /// `x IS ?` compares with NULL equal to NULL in SQLite; PostgreSQL spells it out.
    let isNotDistinctFrom: String
    /// Appended to the outbox claim so workers of several engines skip each other's rows.
    let skipLocked: String
    /// Starts a read-only transaction that sees one consistent state of every table.
    let beginSnapshot: String
    /// Whether write transactions run side by side (and conflict over a row two of them update)
    /// rather than one at a time.
    let concurrentWriters: Bool

    static let sqlite = SQLDialect(
        name: "sqlite", isNotDistinctFrom: "IS", skipLocked: "", beginSnapshot: "BEGIN", concurrentWriters: false)
    static let postgres = SQLDialect(
        name: "postgresql", isNotDistinctFrom: "IS NOT DISTINCT FROM", skipLocked: " FOR UPDATE SKIP LOCKED",
        beginSnapshot: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", concurrentWriters: true)
}

/// What a driver gives the store: one connection, used by one thread at a time. Errors are
/// `StorageFailure`s carrying the database's message, never the bound values.
protocol SQLConnection: AnyObject {
    associatedtype Row: SQLRow
    static var dialect: SQLDialect { get }
    /// False once the connection is known to be unusable (the pool then drops it).
    var isHealthy: Bool { get }
    /// Statements sent to the database since the connection opened (round trips, for PostgreSQL).
    var roundTrips: Int { get set }
    /// Set when the transaction under way recorded an event (SQLStore.record), so its commit
    /// rings the event bell.
    var recordedEvents: Bool { get set }
    /// The entered codes (their pumping scopes, and when) whose credit waits for the transaction
    /// under way to commit (SQLStore.creditAfterCommit), where writers run side by side.
    var pumpingCredits: [(keys: String, at: Timestamp)] { get set }
    /// Runs one or more statements that return no rows (schema changes).
    func execute(_ sql: String) throws
    /// Runs a statement that returns no rows; returns the number of rows it changed.
    @discardableResult func run(_ sql: String, _ args: [SQLValue]) throws -> Int
    /// Calls `each` for every row.
    func rows(_ sql: String, _ args: [SQLValue], _ each: (Row) throws -> Void) throws
    /// Runs `body` in a write transaction that other writers (of any process) cannot interleave
    /// with: SQLite's BEGIN IMMEDIATE, PostgreSQL's SERIALIZABLE. Rolls back on error.
    /// Transactions naming the same `queue` run one at a time (on every engine of the database)
    /// rather than conflicting and running again: for those that all write one hot row.
    /// `rowLocksSuffice`: the transaction only updates rows it names or locks itself (the outbox's
    /// bookkeeping), so PostgreSQL may run it at READ COMMITTED, outside serializable conflict
    /// tracking.
    func transaction<T>(queue: String?, rowLocksSuffice: Bool, _ body: () throws -> T) throws -> T
    /// Runs `body`, a read of several statements, on one consistent state of the database.
    func snapshot<T>(_ body: () throws -> T) throws -> T
    /// Takes the lock `key` for the rest of the transaction if no one else holds it; false if
    /// someone does (so only one engine at a time runs a job such as the purge).
    func tryTransactionLock(_ key: String) throws -> Bool
    func close()
}

extension SQLConnection {
    var dialect: SQLDialect { Self.dialect }
    @discardableResult func run(_ sql: String) throws -> Int { try run(sql, []) }
    func rows(_ sql: String, _ each: (Row) throws -> Void) throws { try rows(sql, [], each) }
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(queue: nil, rowLocksSuffice: false, body)
    }

    /// The first row mapped by `map`, or nil.
    func row<T>(_ sql: String, _ args: [SQLValue] = [], _ map: (Row) throws -> T) throws -> T? {
        var result: T?
        try rows(sql, args) { row in
            if result == nil { result = try map(row) }
        }
        return result
    }
}

/// A database failure as a driver reports it, before the store turns it into a storageError.
struct StorageFailure: Error {
    enum Kind {
        /// A serialization failure or deadlock: the transaction can simply run again.
        case conflict
        /// A pooled connection turned out broken before this transaction or read had done
        /// anything: it runs again, at once, on another connection.
        case stale
        /// The server cannot be reached, or the connection broke or timed out mid-transaction
        /// (nothing half-applied: PostgreSQL rolls back what did not commit). The caller may retry.
        case unavailable
        case other
    }
    var kind: Kind
    var message: String
    /// The connection failed during COMMIT: the change may have been made (see docs/API.md,
    /// "Retrying after a retryable error").
    var commitUnknown = false

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    var asPhoneAuthError: PhoneAuthError {
        let retryable = kind != .other
        return PhoneAuthError(
            .storageError, message,
            details: [("retryable", .bool(retryable))] + (commitUnknown ? [("commitUnknown", .bool(true))] : []))
    }
}
