/// Sessions: refresh-token rotation (with reuse detection), sign-out, live sessions, opening a
/// session (or its challenge) for a sign-in, and the check that a presented session is still live.
extension SQLStore {
    package func rotateRefreshToken(
        _ token: RefreshToken, secretMatches: ([UInt8]) -> Bool, next: (hash: [UInt8], sealed: [UInt8]?),
        reuseMilliseconds: Int64, for caller: Caller, now: Timestamp
    ) throws -> RefreshOutcome {
        try write { db in
            guard
                let (generation, secretHash, revokedReason, previousHash, rotatedAt, sealedSecret) = try db.row(
                    """
                    SELECT s.generation, s.secret_hash, s.revoked_reason, s.previous_secret_hash, s.rotated_at, \
                    s.sealed_secret
                    FROM sessions s\(Self.ofTenant(caller)) WHERE s.uid = ? AND s.id = ?
                    """, Self.tenantValue(caller) + [.text(token.uid), .text(token.sessionId)],
                    {
                        (
                            $0.int(0), $0.blob(1), try $0.optionalText(2, as: RevocationReason.self),
                            $0.optionalBlob(3),
                            $0.optionalInt(4), $0.optionalBlob(5)
                        )
                    })
            else { return .unknown }
            if let revokedReason {
                let disabled = try revokedReason == .userDisabled && (user(uid: token.uid, in: db)?.disabled ?? false)
                return .revoked(reason: revokedReason, userDisabled: disabled)
            }
            // The previous generation again, soon after its rotation: requests that raced each
            // other, or one whose response was lost. Not theft: the same new token again.
            if token.generation == generation - 1, reuseMilliseconds > 0, let rotatedAt,
                now.milliseconds - rotatedAt <= reuseMilliseconds,
                let previousHash, let sealedSecret, secretMatches(previousHash)
            {
                guard let session = try liveSession(uid: token.uid, id: token.sessionId, in: db) else {
                    return .unknown
                }
                return session.user.disabled
                    ? .userDisabled : .reissued(session, generation: generation, sealedSecret: sealedSecret)
            }
            if token.generation < generation {
                // A token that was already rotated away: someone is replaying it, so end the session.
                try db.run(
                    "UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE uid = ? AND id = ?",
                    [
                        .int(now.milliseconds), .text(RevocationReason.reused), .text(token.uid),
                        .text(token.sessionId),
                    ])
                try recordRevoked(uid: token.uid, session: token.sessionId, reason: .reused, at: now, in: db)
                return .revoked(reason: .reused, userDisabled: false)
            }
            guard token.generation == generation, secretMatches(secretHash) else { return .unknown }
            guard let session = try liveSession(uid: token.uid, id: token.sessionId, in: db) else { return .unknown }
            if session.user.disabled { return .userDisabled }
            try db.run(
                """
                UPDATE sessions SET generation = ?, secret_hash = ?, previous_secret_hash = ?, rotated_at = ?, \
                sealed_secret = ?
                WHERE uid = ? AND id = ?
                """,
                [
                    .int(generation + 1), .blob(next.hash), .blob(secretHash), .int(now.milliseconds),
                    next.sealed.map { .blob($0) } ?? .null,
                    .text(token.uid), .text(token.sessionId),
                ])
            return .rotated(session)
        }
    }

    package func signOut(
        _ token: RefreshToken, secretMatches: ([UInt8]) -> Bool, for caller: Caller, now: Timestamp
    ) throws {
        try write { db in
            guard
                let (generation, secretHash) = try db.row(
                    """
                    SELECT s.generation, s.secret_hash FROM sessions s\(Self.ofTenant(caller))
                    WHERE s.uid = ? AND s.id = ? AND s.revoked_at IS NULL
                    """,
                    Self.tenantValue(caller) + [.text(token.uid), .text(token.sessionId)],
                    { ($0.int(0), $0.blob(1)) }),
                generation == token.generation, secretMatches(secretHash)
            else { return }
            try db.run(
                "UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE uid = ? AND id = ?",
                [.int(now.milliseconds), .text(RevocationReason.signedOut), .text(token.uid), .text(token.sessionId)])
            try recordRevoked(uid: token.uid, session: token.sessionId, reason: .signedOut, at: now, in: db)
        }
    }

    /// Joined to `sessions s` when the caller names a pool: only its users' sessions are found
    /// (no join when none is named, as securetoken's refresh names none).
    private static func ofTenant(_ caller: Caller) -> String {
        caller.tenant == nil ? "" : " JOIN users u ON u.uid = s.uid AND u.tenant = ?"
    }

    private static func tenantValue(_ caller: Caller) -> [SQLValue] { caller.tenant.map { [.text($0.text)] } ?? [] }

    package func liveSession(uid: String, id: String) throws -> SessionInfo? {
        try read { try liveSession(uid: uid, id: id, in: $0) }
    }

    func liveSession(uid: String, id: String, in db: Connection) throws -> SessionInfo? {
        guard let user = try self.user(uid: uid, in: db) else { return nil }
        return try db.row(
            """
            SELECT auth_time, provider, developer_claims, second_factor, second_factor_enrollment, session_claims \
            FROM sessions
            WHERE uid = ? AND id = ? AND revoked_at IS NULL
            """, [.text(uid), .text(id)]
        ) { row in
            SessionInfo(
                user: user, sessionId: id, authTime: Timestamp(milliseconds: row.int(0)),
                provider: try row.text(1, as: SignInProvider.self), developerClaims: row.optionalText(2),
                secondFactor: try row.optionalText(3, as: FactorKind.self),
                secondFactorEnrollment: row.optionalText(4), sessionClaims: row.optionalText(5))
        }
    }

    package func revokeSessions(uid: String, in pool: Pool, now: Timestamp) throws -> Bool {
        try write { db in
            guard
                try db.run(
                    "UPDATE users SET valid_since = ? WHERE uid = ? AND tenant = ?",
                    [.int(now.milliseconds), .text(uid), .text(pool.tenant.text)]) == 1
            else { return false }
            try db.run(
                "UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE uid = ? AND revoked_at IS NULL",
                [.int(now.milliseconds), .text(RevocationReason.revoked), .text(uid)])
            try recordRevoked(uid: uid, session: nil, reason: .revoked, at: now, in: db)
            try endChallenges(uid: uid, in: db)
            return true
        }
    }

    /// Through the primary key (uid, id): a user's sessions are a range of it.
    package func liveSessions(uid: String, tenant: TenantID) throws -> [ListedSession]? {
        try read { db in
            guard try user(.uid(uid), tenant: tenant, in: db) != nil else { return nil }
            var sessions: [ListedSession] = []
            try db.rows(
                """
                SELECT id, provider, second_factor, auth_time, created_at, rotated_at, generation FROM sessions \
                WHERE uid = ? AND revoked_at IS NULL ORDER BY created_at DESC, id DESC
                """, [.text(uid)]
            ) { row in
                sessions.append(
                    ListedSession(
                        sessionId: row.text(0), provider: try row.text(1, as: SignInProvider.self),
                        secondFactor: try row.optionalText(2, as: FactorKind.self),
                        authTime: Timestamp(milliseconds: row.int(3)), createdAt: Timestamp(milliseconds: row.int(4)),
                        lastRefreshedAt: row.optionalInt(5).map { Timestamp(milliseconds: $0) }, generation: row.int(6))
                )
            }
            return sessions
        }
    }

    /// Opens `signIn`'s session, or its challenge if the user has second factors.
    func open(
        _ signIn: NewSignIn, for user: UserRecord, isNew: Bool, now: Timestamp, in db: Connection
    ) throws -> AccountOutcome {
        var user = user
        if !user.factors.isEmpty, let challenge = signIn.challenge {
            try insertMFASession(
                challenge, uid: user.uid, provider: signIn.provider, developerClaims: signIn.developerClaims, now: now,
                in: db)
            return .secondFactorRequired(user, challenge: challenge)
        }
        // A new user's row was written with its sign-in time already.
        if !isNew {
            try db.run("UPDATE users SET last_sign_in_at = ? WHERE uid = ?", [.int(now.milliseconds), .text(user.uid)])
            user.lastSignInAt = now
        }
        try db.run(
            """
            INSERT INTO sessions (id, uid, secret_hash, created_at, auth_time, provider, developer_claims, \
            second_factor, second_factor_enrollment, sealed_secret, session_claims)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(signIn.sessionId), .text(user.uid), .blob(signIn.refreshSecretHash), .int(now.milliseconds),
                .int((signIn.authTime ?? now).milliseconds), .text(signIn.provider),
                Self.optional(signIn.developerClaims),
                Self.optional(signIn.secondFactor), Self.optional(signIn.secondFactorEnrollment),
                signIn.sealedSecret.map { .blob($0) } ?? .null, Self.optional(signIn.sessionClaims),
            ])
        // A sign-in of its own (not a continuation, which keeps its session's auth_time) is an event.
        if signIn.authTime == nil {
            try record(
                .userSignedIn, subject: user.uid,
                [
                    ("user", eventUser(user)), ("provider", .string(signIn.provider.rawValue)),
                    ("secondFactor", signIn.secondFactor.map { .string($0.rawValue) } ?? .null),
                    ("isNewUser", .bool(isNew)),
                ], at: now, in: db)
        }
        return .signedIn(
            SessionInfo(
                user: user, sessionId: signIn.sessionId, authTime: signIn.authTime ?? now, provider: signIn.provider,
                developerClaims: signIn.developerClaims, secondFactor: signIn.secondFactor,
                secondFactorEnrollment: signIn.secondFactorEnrollment, sessionClaims: signIn.sessionClaims),
            isNewUser: isNew)
    }

    /// Refuses a change made with an ID token whose session has ended (checked inside the
    /// change's transaction, so a concurrent sign-out or revocation cannot slip in between).
    func checkPresented(uid: String, session: String, in db: Connection) throws -> AccountRefusal? {
        guard let live = try liveSession(uid: uid, id: session, in: db) else {
            guard let user = try self.user(uid: uid, in: db) else { return .userNotFound }
            return user.disabled ? .userDisabled : .sessionEnded
        }
        return live.user.disabled ? .userDisabled : nil
    }

    /// Pending challenges and TOTP enrolments of a user whose sessions end, end too.
    func endChallenges(uid: String, in db: Connection) throws {
        try db.run(
            "UPDATE mfa_sessions SET state = ? WHERE uid = ? AND state = ?",
            [.text(MFASessionState.ended), .text(uid), .text(MFASessionState.active)])
    }
}
