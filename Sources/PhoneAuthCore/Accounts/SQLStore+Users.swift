/// Users and their factors, as the admin methods and the sign-in transactions read and change them.
extension SQLStore {
    /// A user's number is unique within its tenant; lookups by number name the tenant, which
    /// leads the index.
    static var userColumns: String {
        "SELECT uid, phone, display_name, disabled, created_at, last_sign_in_at, valid_since, custom_claims, tenant "
            + "FROM users"
    }

    /// A tenant's user by number (tenant, phone), and a page of its users (tenant, after, limit):
    /// each through an index that the tenant leads (TenantStorageTests checks the plans).
    static var userByNumberQuery: String { userColumns + " WHERE tenant = ? AND phone = ?" }
    static var userPageQuery: String { userColumns + " WHERE tenant = ? AND uid > ? ORDER BY tenant, uid LIMIT ?" }

    static func userRecord(_ row: Connection.Row) -> UserRecord {
        UserRecord(
            uid: row.text(0), phoneNumber: row.optionalText(1), displayName: row.optionalText(2),
            disabled: row.int(3) != 0, createdAt: Timestamp(milliseconds: row.int(4)),
            lastSignInAt: row.optionalInt(5).map { Timestamp(milliseconds: $0) },
            validSince: row.optionalInt(6).map { Timestamp(milliseconds: $0) }, customClaims: row.optionalText(7),
            tenant: TenantID(unchecked: row.text(8)))
    }

    /// The user `uid`, found by a session or a challenge of its own (which the tenant wall let through).
    func user(uid: String, in db: Connection) throws -> UserRecord? {
        try withCredentials(
            try db.row(Self.userColumns + " WHERE uid = ?", [.text(uid)]) { Self.userRecord($0) }, in: db)
    }

    /// The user `key` names if it is of `tenant`: the tenant wall, for every lookup a caller's
    /// tenant bounds (another tenant's user is as unknown as one that never was). By number, the
    /// tenant leads the index.
    func user(_ key: UserKey, tenant: TenantID, in db: Connection) throws -> UserRecord? {
        let found: UserRecord? =
            switch key {
            case let .uid(uid):
                try db.row(Self.userColumns + " WHERE uid = ? AND tenant = ?", [.text(uid), .text(tenant.text)]) {
                    Self.userRecord($0)
                }
            case let .phoneNumber(phone):
                try db.row(Self.userByNumberQuery, [.text(tenant.text), .text(phone)]) { Self.userRecord($0) }
            }
        return try withCredentials(found, in: db)
    }

    /// `user` with its second factors and its passkeys, which every door shows with it.
    func withCredentials(_ user: UserRecord?, in db: Connection) throws -> UserRecord? {
        guard var user else { return nil }
        try db.rows(
            """
            SELECT enrollment_id, factor_id, display_name, phone, enrolled_at FROM factors WHERE uid = ? \
            ORDER BY enrolled_at, enrollment_id
            """, [.text(user.uid)]
        ) { row in
            let factorId = try row.text(1, as: FactorKind.self)
            user.factors.append(
                EnrolledFactor(
                    enrollmentId: row.text(0), factorId: factorId,
                    displayName: row.optionalText(2), phoneNumber: row.optionalText(3),
                    enrolledAt: Timestamp(milliseconds: row.int(4))))
        }
        try db.rows(PasskeySQL.select + " WHERE uid = ? ORDER BY created_at, id", [.text(user.uid)]) {
            user.passkeys.append(PasskeySQL.passkey($0))
        }
        return user
    }

    package func user(_ key: UserKey, tenant: TenantID) throws -> UserRecord? {
        try read { try user(key, tenant: tenant, in: $0) }
    }

    package func deleteUser(uid: String, in pool: Pool, now: Timestamp) throws -> Bool {
        try write { db in
            guard let user = try user(.uid(uid), tenant: pool.tenant, in: db) else { return false }
            try db.run("DELETE FROM users WHERE uid = ?", [.text(uid)])
            try record(.userDeleted, subject: uid, [("user", eventUser(user))], at: now, in: db)
            return true
        }
    }

    /// Writes a new user's row in `tenant`, with its number and, when it is signing in now, its
    /// sign-in time; tenantNotFound if the tenant is gone. `tenantProven`: the caller's
    /// transaction found an active verification of the tenant, and deleting a tenant ends those
    /// in its own transaction, so the tenant is there without asking.
    func insertUser(
        uid: String, phone: String?, tenant: TenantID, signingIn: Bool, now: Timestamp, tenantProven: Bool = false,
        in db: Connection
    ) throws {
        guard try tenantProven || tenantExists(tenant, in: db) else { throw TenantService.notFound(tenant) }
        try db.run(
            "INSERT INTO users (uid, phone, tenant, created_at, last_sign_in_at) VALUES (?, ?, ?, ?, ?)",
            [
                .text(uid), Self.optional(phone), .text(tenant.text), .int(now.milliseconds),
                signingIn ? .int(now.milliseconds) : .null,
            ])
    }

    package func createUser(
        uid: String, in pool: Pool, changes: UserChanges, now: Timestamp
    ) throws -> UpdateUserOutcome {
        try write { db in
            guard try user(uid: uid, in: db) == nil else { return .uidTaken }
            if let refusal = try refusal(of: changes, uid: uid, tenant: pool.tenant, in: db) { return refusal }
            try insertUser(uid: uid, phone: nil, tenant: pool.tenant, signingIn: false, now: now, in: db)
            let outcome = try apply(changes, uid: uid, now: now, announced: false, in: db)
            if case let .updated(user) = outcome {
                try record(.userCreated, subject: uid, [("user", eventUser(user))], at: now, in: db)
            }
            return outcome
        }
    }

    package func updateUser(
        uid: String, in pool: Pool, changes: UserChanges, now: Timestamp
    ) throws -> UpdateUserOutcome {
        try write { db in
            guard let user = try user(.uid(uid), tenant: pool.tenant, in: db) else { return .notFound }
            if let refusal = try refusal(of: changes, uid: uid, tenant: user.tenant, in: db) { return refusal }
            return try apply(changes, uid: uid, now: now, in: db)
        }
    }

    /// Why `changes` cannot be made to `uid` of `tenant`, checked before anything is written.
    func refusal(
        of changes: UserChanges, uid: String, tenant: TenantID, in db: Connection
    ) throws -> UpdateUserOutcome? {
        guard case let .some(.some(phone)) = changes.phoneNumber else { return nil }
        let holder = try numberHolder(phone, tenant: tenant, in: db)
        if let owner = holder.user, owner.uid != uid { return .phoneNumberTaken }
        if holder.isSecondFactor { return .phoneIsSecondFactor }
        return nil
    }

    /// Writes `changes`; `announced`: a userUpdated event names the fields whose values they
    /// changed (none when every value stays as it was).
    func apply(
        _ changes: UserChanges, uid: String, now: Timestamp, announced: Bool = true, in db: Connection
    ) throws -> UpdateUserOutcome {
        let before = announced && events != nil ? try user(uid: uid, in: db) : nil
        if let phone = changes.phoneNumber {
            try db.run("UPDATE users SET phone = ? WHERE uid = ?", [phone.map { .text($0) } ?? .null, .text(uid)])
        }
        if let claims = changes.customClaims {
            try db.run(
                "UPDATE users SET custom_claims = ? WHERE uid = ?", [claims.map { .text($0) } ?? .null, .text(uid)])
        }
        if let disabled = changes.disabled {
            try db.run("UPDATE users SET disabled = ? WHERE uid = ?", [.int(disabled ? 1 : 0), .text(uid)])
            if disabled {
                try db.run(
                    "UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE uid = ? AND revoked_at IS NULL",
                    [.int(now.milliseconds), .text(RevocationReason.userDisabled), .text(uid)])
                try endChallenges(uid: uid, in: db)
            }
        }
        if let displayName = changes.displayName {
            try db.run(
                "UPDATE users SET display_name = ? WHERE uid = ?", [displayName.map { .text($0) } ?? .null, .text(uid)])
        }
        guard let user = try user(uid: uid, in: db) else { return .notFound }
        guard let before else { return .updated(user) }
        let changed = [
            ("phoneNumber", before.phoneNumber != user.phoneNumber),
            ("displayName", before.displayName != user.displayName),
            ("disabled", before.disabled != user.disabled), ("customClaims", before.customClaims != user.customClaims),
        ].filter(\.1).map { JSONValue.string($0.0) }
        if !changed.isEmpty {
            try record(
                .userUpdated, subject: uid, [("user", eventUser(user)), ("changed", .array(changed))], at: now, in: db)
        }
        return .updated(user)
    }

    package func listUsers(in pool: Pool, afterUid: String?, limit: Int) throws -> [UserRecord] {
        try read { db in
            var users: [UserRecord] = []
            // The index users_tenant (tenant, uid) gives the page in order.
            try db.rows(
                Self.userPageQuery,
                [.text(pool.tenant.text), .text(afterUid ?? ""), .int(Int64(limit))]
            ) {
                users.append(Self.userRecord($0))
            }
            return try users.compactMap { try withCredentials($0, in: db) }
        }
    }

}
