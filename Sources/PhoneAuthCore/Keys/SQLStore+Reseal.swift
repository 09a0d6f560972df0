/// Rekeying: every sealed value of the store rewritten, in one transaction.
extension SQLStore {
    /// `secrets` gives a stored key's new sealed bytes; `column` a sealed column value's, given
    /// the value that binds it (its context). A throw rolls everything back.
    package func reseal(
        secrets: (StoredSecret) throws -> [UInt8], column: (SealedColumn, String, [UInt8]) throws -> [UInt8]
    ) throws {
        try write { db in
            var stored: [StoredSecret] = []
            try db.rows(Self.secretColumns) { stored.append(Self.storedSecret($0)) }
            for secret in stored {
                try db.run(
                    "UPDATE secrets SET sealed = ? WHERE kid = ? AND kind = ?",
                    [.blob(try secrets(secret)), .text(secret.kid), .text(secret.kind)])
            }
            for sealed in SealedColumn.allCases {
                let (select, update) = Self.statements(for: sealed)
                var rows: [(key: [SQLValue], context: String, value: [UInt8])] = []
                try db.rows(select) { row in
                    switch sealed {
                    case .outboxBody: rows.append(([.text(row.text(0))], row.text(0), row.blob(2)))
                    case .mfaSessionSecret: rows.append(([.text(row.text(1))], row.text(0), row.blob(2)))
                    case .factorSecret:
                        rows.append(([.text(row.text(0)), .text(row.text(1))], row.text(0), row.blob(2)))
                    case .sessionSecret:
                        rows.append(
                            ([.text(row.text(0)), .text(row.text(1))], "\(row.text(1))/\(row.int(3))", row.blob(2)))
                    }
                }
                for row in rows { try db.run(update, [.blob(try column(sealed, row.context, row.value))] + row.key) }
            }
        }
    }

    /// The SELECT (binding values first, the sealed value third) and UPDATE of each sealed column.
    private static func statements(for column: SealedColumn) -> (String, String) {
        switch column {
        case .outboxBody:
            return (
                "SELECT id, id, sealed_body FROM verifications WHERE sealed_body IS NOT NULL",
                "UPDATE verifications SET sealed_body = ? WHERE id = ?"
            )
        case .mfaSessionSecret:
            return (
                "SELECT uid, id, sealed_secret FROM mfa_sessions WHERE sealed_secret IS NOT NULL",
                "UPDATE mfa_sessions SET sealed_secret = ? WHERE id = ?"
            )
        case .factorSecret:
            return (
                "SELECT uid, enrollment_id, sealed_secret FROM factors WHERE sealed_secret IS NOT NULL",
                "UPDATE factors SET sealed_secret = ? WHERE uid = ? AND enrollment_id = ?"
            )
        case .sessionSecret:
            return (
                "SELECT uid, id, sealed_secret, generation FROM sessions WHERE sealed_secret IS NOT NULL",
                "UPDATE sessions SET sealed_secret = ? WHERE uid = ? AND id = ?"
            )
        }
    }
}
