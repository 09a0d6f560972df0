import CLibPQ
import Glibc

/// One result row of a PostgreSQL statement, fetched in binary format.
struct PostgresRow: SQLRow {
    let result: OpaquePointer
    let row: Int32

    private func bytes(_ i: Int32) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: PQgetvalue(result, row, i), count: Int(PQgetlength(result, row, i)))
    }

    func isNull(_ i: Int32) -> Bool { PQgetisnull(result, row, i) == 1 }
    func int(_ i: Int32) -> Int64 {
        guard !isNull(i) else { return 0 }
        // Binary integers are big-endian, as wide as their type: int8, int4, int2 or bool.
        var value: Int64 = 0
        let data = bytes(i)
        for byte in data { value = value << 8 | Int64(byte) }
        switch data.count {
        case 4: return Int64(Int32(truncatingIfNeeded: value))
        case 2: return Int64(Int16(truncatingIfNeeded: value))
        default: return value
        }
    }
    func text(_ i: Int32) -> String { String(decoding: bytes(i), as: UTF8.self) }
    func blob(_ i: Int32) -> [UInt8] { Array(bytes(i)) }
    var columnCount: Int32 { PQnfields(result) }
    func columnName(_ i: Int32) -> String { PQfname(result, i).map { String(cString: $0) } ?? "" }
    func value(_ i: Int32) -> SQLValue {
        if isNull(i) { return .null }
        switch PQftype(result, i) {
        case 16, 20, 21, 23: return .int(int(i))  // bool, int8, int2, int4
        case 17: return .blob(blob(i))  // bytea
        default: return .text(text(i))
        }
    }
}

/// A PostgreSQL connection through libpq, with a cache of prepared statements. Not
/// thread-safe: the pool gives it to one thread at a time. Every exchange with the server has a
/// deadline (`statementTimeoutMs`, also set as the server's statement_timeout), so a call never
/// waits on a server that went away. Errors carry the server's primary message (never the
/// bound values, which PostgreSQL puts in the detail) and name host and database, never the password.
final class PostgresConnection: SQLConnection {
    static let dialect = SQLDialect.postgres
    private(set) var isHealthy = true
    var roundTrips = 0
    var recordedEvents = false
    var pumpingCredits: [(keys: String, at: Timestamp)] = []
    private let connection: OpaquePointer
    private let settings: PostgresSettings
    private var statements: [String: (name: String, parameters: Int32)] = [:]
    private var preparedCount = 0
    /// Whether a transaction is open, and the statements that start it (BEGIN, after taking its
    /// queue lock), while they wait to go with its first statement.
    private var inTransaction = false
    private var pendingStart: [[String]] = []
    /// Whether the server sent a WARNING since this was last cleared: at COMMIT, PostgreSQL's way
    /// of saying it stopped waiting for the synchronous standby (a cancel of the waiting backend),
    /// though the change may be on the primary alone.
    private var warned = false

    init(_ settings: PostgresSettings) throws {
        self.settings = settings
        // The server gives up a little before this client's deadline, so a slow statement ends
        // with its clean error rather than a dropped connection; a queue's lock is waited for
        // half as long; a session left idle in a transaction (its client gone) ends.
        let timeout = settings.statementTimeoutMs
        let options =
            "-c search_path=\(settings.schema) -c statement_timeout=\(timeout * 4 / 5) -c lock_timeout=\(timeout / 2)"
            + " -c idle_in_transaction_session_timeout=\(max(2 * timeout, 10_000))"
        // The URI comes first and is expanded; the later values override what it says, so only
        // what it does not say is added (the configuration has already taken its connect_timeout
        // and refused what would conflict: PostgresSettings.adoptURIParameters).
        let defaults: [(String, String)] = [
            ("application_name", "phoneauth"),
            // A server that vanishes without closing the socket is noticed within seconds.
            ("keepalives", "1"), ("keepalives_idle", "5"), ("keepalives_interval", "2"), ("keepalives_count", "2"),
        ]
        let parameters: [(String, String)] =
            [
                ("dbname", settings.uri), ("connect_timeout", String(settings.connectTimeoutSeconds)),
                ("options", options), ("client_encoding", "UTF8"),
            ] + defaults.filter { !settings.uriSets($0.0) }
        let made = withCStrings(parameters.map(\.0)) { keys in
            withCStrings(parameters.map(\.1)) { values in PQconnectdbParams(keys, values, 1) }
        }
        guard let made else { throw StorageFailure(.unavailable, "libpq could not allocate a connection.") }
        guard PQstatus(made) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(made))
            PQfinish(made)
            throw StorageFailure(
                .unavailable,
                "Cannot connect to PostgreSQL (\(settings.location)): \(settings.redact(Self.firstLine(message)))")
        }
        connection = made
        // Notices (such as "relation already exists, skipping") are not for the host's stderr;
        // a WARNING is noted (see `warned`). The connection never outlives this object.
        PQsetNoticeReceiver(
            made,
            { context, notice in
                guard let context, let notice,
                    let severity = PQresultErrorField(notice, Int32(UInt8(ascii: "V"))),
                    String(cString: severity) == "WARNING"
                else { return }
                Unmanaged<PostgresConnection>.fromOpaque(context).takeUnretainedValue().warned = true
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    func close() { PQfinish(connection) }

    // MARK: SQLConnection

    /// One statement, or several (schema changes) outside a transaction's start: a pipeline
    /// takes one statement at a time.
    func execute(_ sql: String) throws {
        let alone = pendingStart.isEmpty
        PQclear(
            try exchange { [connection] in
                alone ? PQsendQuery(connection, sql) : PQsendQueryParams(connection, sql, 0, nil, nil, nil, nil, 0)
            })
    }

    @discardableResult
    func run(_ sql: String, _ args: [SQLValue]) throws -> Int {
        let result = try query(sql, args)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    func rows(_ sql: String, _ args: [SQLValue], _ each: (PostgresRow) throws -> Void) throws {
        let result = try query(sql, args)
        defer { PQclear(result) }
        for row in 0..<PQntuples(result) { try each(PostgresRow(result: result, row: row)) }
    }

    /// BEGIN is not sent on its own: it goes in one round trip with the transaction's first
    /// statement (libpq's pipeline mode), and so does taking the queue lock before it; releasing
    /// the lock goes with COMMIT or ROLLBACK.
    func transaction<T>(queue: String?, rowLocksSuffice: Bool, _ body: () throws -> T) throws -> T {
        // Each group of a pipeline ends in a sync, as its own implicit transaction: the lock is
        // taken before BEGIN, and released even when COMMIT fails. (The names are a schema name
        // and a fixed word: nothing to escape.)
        let lock = queue.map { "hashtext('" + lockName($0) + "')" }
        let begin = "BEGIN ISOLATION LEVEL " + (rowLocksSuffice ? "READ COMMITTED" : "SERIALIZABLE")
        return try inTransaction(
            start: (lock.map { [["SELECT pg_advisory_lock(\($0))"]] } ?? []) + [[begin]],
            end: lock.map { [["SELECT pg_advisory_unlock(\($0))"]] } ?? [], body)
    }

    /// One consistent view of every table, for reads of several statements.
    func snapshot<T>(_ body: () throws -> T) throws -> T {
        try inTransaction(start: [["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"]], end: [], body)
    }

    private func inTransaction<T>(start: [[String]], end: [[String]], _ body: () throws -> T) throws -> T {
        pendingStart = start
        inTransaction = true
        defer { inTransaction = false; pendingStart = [] }
        let result: T
        do {
            result = try body()
        } catch {
            if isHealthy && pendingStart.isEmpty {
                // A connection that cannot roll back (and let go of the queue) is not reused.
                do { PQclear(try exchange(pipeline: [["ROLLBACK"]] + end)) } catch { isHealthy = false }
            }
            throw error
        }
        guard pendingStart.isEmpty else { return result }
        warned = false
        do {
            PQclear(try exchange(pipeline: [["COMMIT"]] + end))
        } catch var failure as StorageFailure where failure.kind == .unavailable {
            failure.message += " Whether the change was committed is unknown."
            failure.commitUnknown = true
            throw failure
        }
        // A COMMIT answered with a WARNING ("canceling wait for synchronous replication") is
        // committed on the primary but perhaps on no standby: a fail-over now would lose it, so
        // the caller is not told it succeeded, and its retry is answered by the retry rules.
        if warned {
            var failure = StorageFailure(
                .unavailable,
                "PostgreSQL committed without waiting for the synchronous standby; whether the change was "
                    + "committed is unknown.")
            failure.commitUnknown = true
            throw failure
        }
        return result
    }

    func tryTransactionLock(_ key: String) throws -> Bool {
        try row("SELECT pg_try_advisory_xact_lock(hashtext(?))", [.text(lockName(key))]) { $0.int(0) != 0 } ?? false
    }

    /// Waits for the lock `key` of this schema, held until `sessionUnlock` or the connection ends.
    func sessionLock(_ key: String) throws { try run("SELECT pg_advisory_lock(hashtext(?))", [.text(lockName(key))]) }
    func sessionUnlock(_ key: String) throws {
        try run("SELECT pg_advisory_unlock(hashtext(?))", [.text(lockName(key))])
    }

    private func lockName(_ key: String) -> String { "phoneauth:" + settings.schema + ":" + key }

    // MARK: Statements

    /// Runs `sql` as a prepared statement (prepared once per connection), `?` placeholders
    /// becoming $1, $2, …; integers and text go as text, blobs as binary; rows come back binary.
    private func query(_ sql: String, _ args: [SQLValue]) throws -> OpaquePointer {
        let statement: (name: String, parameters: Int32)
        if let cached = statements[sql] {
            statement = cached
        } else {
            let (text, count) = Self.numberPlaceholders(sql)
            // Named from a counter that only grows: a prepare whose request failed may still exist
            // on the server, and its name must not be reused.
            preparedCount += 1
            let name = "s\(preparedCount)"
            PQclear(try exchange { [connection] in PQsendPrepare(connection, name, text, count, nil) })
            statement = (name, count)
            statements[sql] = statement
        }
        var buffer: [UInt8] = []
        var offsets: [Int?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for arg in args {
            let bytes: [UInt8]?
            switch arg {
            case let .int(v): bytes = Array(String(v).utf8) + [0]
            case let .text(v): bytes = Array(v.utf8) + [0]
            case let .blob(v): bytes = v
            case .null: bytes = nil
            }
            offsets.append(bytes.map { _ in buffer.count })
            lengths.append(Int32(bytes?.count ?? 0))
            if case .blob = arg { formats.append(1) } else { formats.append(0) }
            buffer += bytes ?? []
        }
        buffer.append(0)  // so that the base address of an all-empty buffer is valid
        return try buffer.withUnsafeBufferPointer { base in
            guard let start = base.baseAddress else { throw StorageFailure(.other, "No parameter buffer.") }
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in
                offset.map { UnsafeRawPointer(start + $0).assumingMemoryBound(to: CChar.self) }
            }
            return try exchange { [connection] in
                PQsendQueryPrepared(connection, statement.name, Int32(args.count), values, lengths, formats, 1)
            }
        }
    }

    /// Sends one request (after a transaction's pending start, in the same round trip) and waits,
    /// at most the statement timeout, for its result. `pipeline` statements (without parameters)
    /// go first, in pipeline mode. A broken connection is marked unhealthy; if that happened before
    /// this transaction (or read) had done anything, the failure is `stale` and the store runs it
    /// again on another connection.
    private func exchange(pipeline: [[String]] = [], _ send: (() -> Int32)? = nil) throws -> OpaquePointer {
        roundTrips += 1
        let first = !inTransaction || !pendingStart.isEmpty
        let groups = pendingStart + pipeline
        pendingStart = []
        let pipelined = !groups.isEmpty
        guard isHealthy else { throw broken(first: first) }
        if pipelined {
            guard PQenterPipelineMode(connection) == 1 else { throw broken(first: first) }
            for (index, group) in groups.enumerated() {
                let isLast = index == groups.count - 1
                guard group.allSatisfy({ PQsendQueryParams(connection, $0, 0, nil, nil, nil, nil, 0) == 1 }),
                    !isLast || (send.map { $0() == 1 } ?? true), PQpipelineSync(connection) == 1
                else { throw broken(first: first) }
            }
        } else {
            guard let send, send() == 1 else { throw broken(first: first) }
        }
        var syncsLeft = groups.count
        let deadline = monotonicMilliseconds() + Int64(settings.statementTimeoutMs)
        var last: OpaquePointer?
        var failure: StorageFailure?
        defer {
            // A connection left in pipeline mode (results unread) is of no further use.
            if pipelined && PQexitPipelineMode(connection) != 1 { isHealthy = false }
        }
        // Every result up to the end of the request: the final NULL, or in a pipeline its sync
        // (each statement's results there end with a NULL of their own).
        results: while true {
            do { try waitForResult(until: deadline, first: first) } catch { PQclear(last); throw error }
            guard let result = PQgetResult(connection) else {
                if pipelined && PQstatus(connection) == CONNECTION_OK { continue }
                break
            }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                PQclear(last)
                last = result
            case PGRES_PIPELINE_SYNC:
                PQclear(result)
                syncsLeft -= 1
                if syncsLeft == 0 { break results }
            case PGRES_PIPELINE_ABORTED:
                PQclear(result)
            default:
                if failure == nil { failure = serverFailure(result) }
                PQclear(result)
            }
        }
        if PQstatus(connection) != CONNECTION_OK { PQclear(last); throw broken(first: first) }
        if let failure { PQclear(last); throw failure }
        guard let last else { throw StorageFailure(.other, "PostgreSQL returned no result.") }
        return last
    }

    /// Reads from the server until libpq has a result ready, or the deadline passes.
    private func waitForResult(until deadline: Int64, first: Bool) throws {
        while PQisBusy(connection) == 1 {
            let left = deadline - monotonicMilliseconds()
            guard left > 0 else {
                isHealthy = false
                throw StorageFailure(
                    .unavailable,
                    "PostgreSQL (\(settings.location)) did not answer within \(settings.statementTimeoutMs) ms.")
            }
            var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, Int32(min(left, 1000))) < 0 && errno != EINTR { throw broken(first: first) }
            guard PQconsumeInput(connection) == 1 else { throw broken(first: first) }
        }
    }

    private func broken(first: Bool) -> StorageFailure {
        isHealthy = false
        let message = settings.redact(Self.firstLine(String(cString: PQerrorMessage(connection))))
        return StorageFailure(
            first ? .stale : .unavailable, "The connection to PostgreSQL (\(settings.location)) broke: \(message)")
    }

    private func serverFailure(_ result: OpaquePointer) -> StorageFailure {
        let state = PQresultErrorField(result, pa_pg_diag_sqlstate()).map { String(cString: $0) } ?? ""
        let message = PQresultErrorField(result, pa_pg_diag_message()).map { String(cString: $0) } ?? "unknown error"
        let kind: StorageFailure.Kind
        switch state {
        // Serialization failure, deadlock; and a unique key another transaction inserted
        // meanwhile, which running again sees and decides on.
        case "40001", "40P01", "23505": kind = .conflict
        // Connection exceptions, shutdown, statement or lock timeout: the caller may try again.
        case _ where state.hasPrefix("08") || state.hasPrefix("57") || state == "55P03": kind = .unavailable
        default: kind = .other
        }
        return StorageFailure(
            kind,
            "PostgreSQL (\(settings.location)) refused a statement: \(settings.redact(message)) (SQLSTATE \(state)).")
    }

    /// `?` placeholders (outside quoted literals) as $1, $2, …, and how many there are.
    static func numberPlaceholders(_ sql: String) -> (String, Int32) {
        var result = ""
        var count: Int32 = 0
        var quoted = false
        for c in sql {
            if c == "'" { quoted.toggle() }
            if c == "?" && !quoted {
                count += 1
                result += "$\(count)"
            } else {
                result.append(c)
            }
        }
        return (result, count)
    }

    private static func firstLine(_ message: String) -> String {
        String(message.split(separator: "\n").first ?? "unknown error")
    }
}

/// Calls `body` with the strings as a NULL-terminated array of C strings.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return body(copies.map { UnsafePointer($0) } + [nil])
}
