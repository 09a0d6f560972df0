/// Passkeys and their ceremonies' challenges.
extension SQLStore {
    package func addPasskeyChallenge(
        hash: [UInt8], ceremony: ClientData.Ceremony, tenant: TenantID, uid: String?, expiresAt: Timestamp,
        now: Timestamp, ipKey: String?, ipLimit: Int
    ) throws -> LimitTrip? {
        try write { db in
            if let trip = try countAppCheck(ipKey: ipKey, limit: ipLimit, now: now, in: db) { return trip }
            try db.run(
                "INSERT INTO passkey_challenges (id, ceremony, tenant, uid, expires_at) VALUES (?, ?, ?, ?, ?)",
                [
                    .blob(hash), .text(ceremony.rawValue), .text(tenant.text), Self.optional(uid),
                    .int(expiresAt.milliseconds),
                ])
            return nil
        }
    }

    package func takePasskeyChallenge(
        hash: [UInt8], ceremony: ClientData.Ceremony, tenant: TenantID, now: Timestamp
    ) throws -> String?? {
        try write { db in
            guard
                let (uid, expiresAt) = try db.row(
                    "SELECT uid, expires_at FROM passkey_challenges WHERE id = ? AND ceremony = ? AND tenant = ?",
                    [.blob(hash), .text(ceremony.rawValue), .text(tenant.text)], { ($0.optionalText(0), $0.int(1)) })
            else { return nil }
            // Used up whatever its answer: a challenge proves one ceremony, or none.
            try db.run("DELETE FROM passkey_challenges WHERE id = ?", [.blob(hash)])
            return expiresAt > now.milliseconds ? .some(uid) : nil
        }
    }

    package func addPasskey(
        _ p: Passkey, max: Int, presentedSession: String, opening signIn: NewSignIn, now: Timestamp
    ) throws -> AccountOutcome? {
        try write { db in
            // A user deleted, disabled or signed out since the session was checked adds nothing.
            if let refusal = try checkPresented(uid: p.uid, session: presentedSession, in: db) {
                return .refused(refusal)
            }
            let count = try db.row("SELECT count(*) FROM passkeys WHERE uid = ?", [.text(p.uid)]) { $0.int(0) } ?? 0
            guard count < max else { return nil }
            guard try db.row("SELECT 1 FROM passkeys WHERE id = ?", [.text(p.id)], { _ in true }) == nil else {
                throw PasskeyRefusal.alreadyRegistered
            }
            try insertPasskey(p, in: db)
            guard let user = try user(uid: p.uid, in: db) else { return .refused(.userNotFound) }
            return try open(signIn, for: user, isNew: false, now: now, in: db)
        }
    }

    func insertPasskey(_ p: Passkey, in db: Connection) throws {
        try db.run(
            """
            INSERT INTO passkeys (id, tenant, uid, public_key, algorithm, sign_count, aaguid, format, \
            backup_eligible, name, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(p.id), .text(p.tenant.text), .text(p.uid), .blob(p.publicKey), .int(p.algorithm),
                .int(Int64(p.signCount)), .blob(p.aaguid), .text(p.format), .int(p.backupEligible ? 1 : 0),
                .text(p.name), .int(p.createdAt.milliseconds), p.lastUsedAt.map { .int($0.milliseconds) } ?? .null,
            ])
    }

    /// An imported user's passkeys, in place of those it had; a credential another user has is
    /// refused (the import of that user is undone).
    func replacePasskeys(of user: UserRecord, in db: Connection) throws {
        try db.run("DELETE FROM passkeys WHERE uid = ?", [.text(user.uid)])
        for passkey in user.passkeys {
            guard try db.row("SELECT 1 FROM passkeys WHERE id = ?", [.text(passkey.id)], { _ in true }) == nil else {
                throw PhoneAuthError(
                    .invalidArgument, "Another user has the passkey \(passkey.id).",
                    details: [("field", .string("passkeyInfo"))])
            }
            try insertPasskey(passkey, in: db)
        }
    }

    package func passkey(id: String, tenant: TenantID) throws -> Passkey? {
        try read { db in
            try db.row(
                PasskeySQL.select + " WHERE id = ? AND tenant = ?", [.text(id), .text(tenant.text)]
            ) { PasskeySQL.passkey($0) }
        }
    }

    package func passkeys(uid: String, tenant: TenantID) throws -> [Passkey] {
        try read { db in
            var found: [Passkey] = []
            try db.rows(
                PasskeySQL.select + " WHERE uid = ? AND tenant = ? ORDER BY created_at, id",
                [.text(uid), .text(tenant.text)]
            ) { found.append(PasskeySQL.passkey($0)) }
            return found
        }
    }

    package func usePasskey(id: String, tenant: TenantID, from: UInt32, to: UInt32, at: Timestamp) throws -> Bool {
        try write { db in
            try db.run(
                "UPDATE passkeys SET sign_count = ?, last_used_at = ? WHERE id = ? AND tenant = ? AND sign_count = ?",
                [.int(Int64(to)), .int(at.milliseconds), .text(id), .text(tenant.text), .int(Int64(from))]) == 1
        }
    }

    package func removePasskey(id: String, uid: String, tenant: TenantID) throws -> Bool {
        try write { db in
            try db.run(
                "DELETE FROM passkeys WHERE id = ? AND uid = ? AND tenant = ?",
                [.text(id), .text(uid), .text(tenant.text)]) == 1
        }
    }
}
