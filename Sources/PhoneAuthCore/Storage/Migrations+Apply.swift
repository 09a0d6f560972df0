/// Running the migrations on a database, and reading what a database has.
extension Migrations {
    static func apply(to connection: SQLiteConnection) throws {
        // A migration that rebuilds a table drops the old one: with foreign keys on, that would
        // delete every row referring to it. They are off meanwhile (SQLite takes this only outside
        // a transaction), and checked before the migrations commit.
        try connection.execute("PRAGMA foreign_keys=OFF")
        defer { try? connection.execute("PRAGMA foreign_keys=ON") }
        try connection.transaction {
            let current = try connection.row("PRAGMA user_version") { Int($0.int(0)) } ?? 0
            try refuseNewer(current)
            for (index, sql) in all.enumerated() where index >= current {
                try connection.execute(sql)
            }
            var dangling = 0
            try connection.rows("PRAGMA foreign_key_check") { _ in dangling += 1 }
            guard dangling == 0 else {
                throw StorageFailure(.other, "The migrated schema has \(dangling) rows whose user is missing.")
            }
            try connection.execute("PRAGMA user_version = \(all.count)")
        }
    }

    /// Engines starting together on an empty database queue on an advisory lock, so the first
    /// one migrates and the others find the schema done.
    static func apply(to connection: PostgresConnection, schema: String) throws {
        let lock = "migrate"
        // The wait is for another engine's whole migration, not one statement: the connection's
        // statement and lock timeouts (made for single statements, and short where fail-over
        // must be quick) would fail an engine that merely started beside another on a busy host.
        for setting in ["lock_timeout", "statement_timeout"] { try connection.execute("SET \(setting) = '60s'") }
        try connection.sessionLock(lock)
        defer { try? connection.sessionUnlock(lock) }
        for setting in ["lock_timeout", "statement_timeout"] { try connection.execute("RESET \(setting)") }
        try connection.execute("BEGIN")
        do {
            let exists =
                try connection.row("SELECT 1 FROM pg_namespace WHERE nspname = ?", [.text(schema)]) { _ in true }
                ?? false
            if !exists { try connection.execute("CREATE SCHEMA \(schema)") }
            try connection.execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")
            let found: Int64?? = try connection.row("SELECT max(version) FROM schema_version") { $0.optionalInt(0) }
            let current = Int((found ?? nil) ?? 0)
            try refuseNewer(current)
            for (index, sql) in all.enumerated() where index >= current {
                try connection.execute(postgresOnly[index] ?? postgres(sql))
            }
            if current < all.count {
                try connection.execute("DELETE FROM schema_version")
                try connection.run("INSERT INTO schema_version (version) VALUES (?)", [.int(Int64(all.count))])
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// The schema version of a database, without changing it (0: none yet).
    static func version(of connection: some SQLConnection) throws -> Int {
        if connection.dialect.name == "sqlite" {
            return Int(try connection.row("PRAGMA user_version", [], { $0.int(0) }) ?? 0)
        }
        let found =
            try connection.row("SELECT to_regclass('schema_version') IS NOT NULL", [], { $0.int(0) != 0 }) ?? false
        guard found else { return 0 }
        return Int(
            try connection.row("SELECT max(version) FROM schema_version", [], { $0.optionalInt(0) }).flatMap { $0 } ?? 0
        )
    }

    /// The tables a database has, but for the migrations' own bookkeeping.
    static func tables(of connection: some SQLConnection) throws -> Set<String> {
        var names: Set<String> = []
        let sql =
            connection.dialect.name == "sqlite"
            ? "SELECT name FROM sqlite_master WHERE type = 'table'"
            : "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
                + "AND table_name <> 'schema_version'"
        try connection.rows(sql) { names.insert($0.text(0)) }
        return names
    }

    private static func refuseNewer(_ current: Int) throws {
        guard current <= all.count else {
            throw StorageFailure(
                .other,
                "The database was written by a newer PhoneAuth (schema \(current); this one knows \(all.count)).")
        }
    }
}
