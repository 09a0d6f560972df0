/// Copies a whole deployment from one database into another whose schema is empty (SQLite
/// to PostgreSQL, when one machine is no longer enough): users, factors, sessions, verifications
/// in flight, sealed keys, limit counters and undelivered events, row for row, so a signed-in user stays signed in.
/// The keys stay sealed: engines on the target need the source's master key.
package enum StoreCopy {
    /// Every table of the schema, parents before the tables that refer to them.
    static let tables = [
        "secrets", "tenants", "users", "factors", "sessions", "mfa_sessions", "verifications", "deliveries", "counters",
        "number_failures", "app_checks", "events", "pumping_scopes", "pumping_decisions", "passkeys",
        "passkey_challenges",
    ]

    /// Copies everything in one read of the source and one transaction on the target; returns
    /// the rows copied per table. Refuses a target that holds any row.
    package static func copy(from source: Database, to target: Database) throws -> [(table: String, rows: Int)] {
        do {
            let from = try source.connectExisting()
            defer { from.close() }
            let to = try target.connect()
            defer { to.close() }
            return try copy(from, to, target: target.location)
        } catch let failure as StorageFailure {
            throw failure.asPhoneAuthError
        }
    }

    private static func copy(
        _ from: some SQLConnection, _ to: some SQLConnection, target: String
    ) throws -> [(table: String, rows: Int)] {
        // A table this list forgot would be left behind without a word.
        guard try Migrations.tables(of: to) == Set(tables) else {
            throw StorageFailure(
                .other, "The copy does not know every table of the schema (it knows \(tables.joined(separator: ", ")))."
            )
        }
        return try to.transaction {
            for table in tables {
                if try to.row("SELECT 1 FROM \(table) LIMIT 1", [], { _ in true }) == true {
                    throw PhoneAuthError(
                        .invalidArgument, "The target database (\(target)) is not empty: its table \(table) has rows.",
                        details: [("table", .string(table))])
                }
            }
            // One read transaction on the source: a consistent picture even while engines use it.
            try from.execute(from.dialect.beginSnapshot)
            defer { try? from.execute("COMMIT") }
            return try tables.map { table in
                var copied = 0
                try from.rows("SELECT * FROM \(table)") { row in
                    let columns = (0..<row.columnCount).map { row.columnName($0) }
                    let sql =
                        "INSERT INTO \(table) (\(columns.joined(separator: ", "))) "
                        + "VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
                    try to.run(sql, (0..<row.columnCount).map { row.value($0) })
                    copied += 1
                }
                return (table, copied)
            }
        }
    }
}
