/// The sealed keys in the `secrets` table (KeyStore).
extension SQLStore {
    static var secretColumns: String { "SELECT kid, kind, sealed, created_at, retire_at FROM secrets" }

    static func storedSecret(_ row: Connection.Row) -> StoredSecret {
        StoredSecret(
            kid: row.text(0), kind: row.text(1), sealed: row.blob(2), createdAt: Timestamp(milliseconds: row.int(3)),
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
            let existing =
                try db.row("SELECT count(*) FROM secrets WHERE kind = ? AND retire_at IS NULL", [.text(secret.kind)]) {
                    $0.int(0)
                } ?? 0
            if existing == 0 {
                try insert(secret, in: db)
                // A key of another algorithm made current (a configuration change) is a rotation.
                if Self.signingKinds.contains(secret.kind) {
                    try scheduleRetirement(except: secret.kid, at: secret.retireAtOfOthers, in: db)
                }
            }
            var result: [StoredSecret] = []
            try db.rows(
                Self.secretColumns + " WHERE kind = ? AND retire_at IS NULL ORDER BY created_at, kid",
                [.text(secret.kind)]
            ) {
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
    /// engines that all find a rotation due make exactly one). Whether it was added. Its created_at
    /// is a millisecond after every other signing key's at least, so the keys list in the order
    /// they were made even when two are made within one millisecond.
    package func rotateSigningKey(
        _ secret: StoredSecret, retireOthersAt: Timestamp, ifNewestBefore: Timestamp?
    ) throws -> Bool {
        try write { db in
            let kinds = Self.signingKindFilter
            let (newest, newestCurrent) =
                try db.row(
                    "SELECT max(created_at), max(CASE WHEN retire_at IS NULL THEN created_at END) FROM secrets "
                        + "WHERE \(kinds.sql)",
                    kinds.args
                ) { ($0.optionalInt(0), $0.optionalInt(1)) } ?? (nil, nil)
            if let threshold = ifNewestBefore, let newestCurrent, newestCurrent >= threshold.milliseconds {
                return false
            }
            var secret = secret
            if let newest, newest >= secret.createdAt.milliseconds {
                secret.createdAt = Timestamp(milliseconds: newest + 1)
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
            return try db.run(
                "UPDATE secrets SET retire_at = ? WHERE kid = ? AND \(kinds.sql) "
                    + "AND (retire_at IS NULL OR retire_at > ?)",
                [.int(now.milliseconds), .text(kid)] + kinds.args + [.int(now.milliseconds)]) == 1
        }
    }

    private func insert(_ secret: StoredSecret, in db: Connection) throws {
        try db.run(
            "INSERT INTO secrets (kid, kind, sealed, created_at) VALUES (?, ?, ?, ?)",
            [.text(secret.kid), .text(secret.kind), .blob(secret.sealed), .int(secret.createdAt.milliseconds)])
    }

    private func scheduleRetirement(except kid: String, at time: Timestamp?, in db: Connection) throws {
        guard let time else { return }
        let kinds = Self.signingKindFilter
        try db.run(
            "UPDATE secrets SET retire_at = ? WHERE retire_at IS NULL AND kid <> ? AND \(kinds.sql)",
            [.int(time.milliseconds), .text(kid)] + kinds.args)
    }
}
