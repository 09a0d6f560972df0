import Glibc

/// The store's logic, written once over a SQL driver: every operation is one transaction, and
/// SQLite and PostgreSQL differ only in their `SQLConnection` (and its `SQLDialect`). With
/// SQLite the pool holds one connection (SQLite has one writer at a time anyway); with
/// PostgreSQL it holds several, and transactions that conflict with another engine's are run
/// again.
final class SQLStore<Connection: SQLConnection>: Store, @unchecked Sendable {
    let pool: ConnectionPool<Connection>
    let dialect: SQLDialect
    /// A transaction that keeps conflicting is reported after this many tries.
    static var maxTries: Int { 10 }

    init(pool: ConnectionPool<Connection>, dialect: SQLDialect) {
        self.pool = pool
        self.dialect = dialect
    }

    public func close() { pool.close() }

    /// Runs `body` in a write transaction, again if it conflicted with another one (after a
    /// short random pause, so the contenders spread out) or met a connection that had broken.
    func write<T>(_ body: (Connection) throws -> T) throws -> T {
        try retrying(transaction: true) { db in try db.transaction { try body(db) } }
    }

    func read<T>(_ body: (Connection) throws -> T) throws -> T {
        try retrying(transaction: false, body)
    }

    private func retrying<T>(transaction: Bool, _ body: (Connection) throws -> T) throws -> T {
        var conflicts = 0, staleConnections = 0
        while true {
            do {
                let result = try pool.withConnection(body)
                if transaction { pool.count(transactions: 1, retries: conflicts + staleConnections) }
                return result
            } catch let failure as StorageFailure {
                switch failure.kind {
                case .conflict where conflicts + 1 < Self.maxTries:
                    conflicts += 1
                    usleep(UInt32.random(in: 0...UInt32(250 << min(conflicts, 5))))
                case .stale where staleConnections <= pool.size:
                    staleConnections += 1
                default:
                    throw failure.asPhoneAuthError
                }
            }
        }
    }

    /// Statements, transactions and retries so far (for benchmarks and monitoring).
    public func statistics() -> StoreStatistics {
        let s = pool.currentStatistics
        return StoreStatistics(driver: dialect.name, poolSize: s.size, transactions: s.transactions, retries: s.retries,
                               roundTrips: s.roundTrips)
    }

    // MARK: Keys

    public func secrets() throws -> [StoredSecret] {
        try read { db in
            var result: [StoredSecret] = []
            try db.rows("SELECT kid, kind, sealed, created_at FROM secrets ORDER BY created_at, kid") { row in
                result.append(StoredSecret(kid: row.text(0), kind: row.text(1), sealed: row.blob(2), createdAt: Timestamp(milliseconds: row.int(3))))
            }
            return result
        }
    }

    public func addSecretIfNoneOfKind(_ secret: StoredSecret) throws -> [StoredSecret] {
        try write { db in
            let existing = try db.row("SELECT count(*) FROM secrets WHERE kind = ?", [.text(secret.kind)]) { $0.int(0) } ?? 0
            if existing == 0 {
                try db.run("INSERT INTO secrets (kid, kind, sealed, created_at) VALUES (?, ?, ?, ?)",
                           [.text(secret.kid), .text(secret.kind), .blob(secret.sealed), .int(secret.createdAt.milliseconds)])
            }
            var result: [StoredSecret] = []
            try db.rows("SELECT kid, kind, sealed, created_at FROM secrets WHERE kind = ? ORDER BY created_at, kid", [.text(secret.kind)]) { row in
                result.append(StoredSecret(kid: row.text(0), kind: row.text(1), sealed: row.blob(2), createdAt: Timestamp(milliseconds: row.int(3))))
            }
            return result
        }
    }

    // MARK: Verifications

    public func startVerification(_ v: NewVerification, reuseIfCreatedAfter: Timestamp?, leaseUntil: Timestamp,
                                  limits: SendLimits?) throws -> VerificationStart {
        try write { db in
            // Verifications of one number for different purposes (a sign-in, an enrolment, each
            // challenge) are independent: a sign-in request must not cancel a user's pending second factor.
            let latest = try db.row("""
                SELECT id, created_at, expires_at, state FROM verifications WHERE phone = ? AND purpose = ? AND subject \(dialect.isNotDistinctFrom) ?
                ORDER BY created_at DESC LIMIT 1
                """, [.text(v.phone), .text(v.purpose.rawValue), Self.optional(v.subject)]) { row in
                (row.text(0), Timestamp(milliseconds: row.int(1)), Timestamp(milliseconds: row.int(2)), row.text(3))
            }
            // A locked number gets nothing, not even the verification it already has.
            if limits != nil, let until = try lockedUntil(v.phone, now: v.createdAt, in: db) { return .numberLocked(until: until) }
            if let (id, createdAt, expiresAt, state) = latest, let reuseIfCreatedAfter, createdAt > reuseIfCreatedAfter {
                if state == "active" && expiresAt > v.createdAt { return .reused(id: id, createdAt: createdAt, expiresAt: expiresAt) }
                // Five wrong codes must not buy five more at once: a new code waits for the window.
                if state == "dead" { return .blocked(since: createdAt) }
            }
            if let limits, let trip = try checkSendLimits(limits, phone: v.phone, now: v.createdAt, in: db) { return .limited(trip) }
            // A number has at most one active verification per purpose, its latest: replacing it is
            // one row, however often the number is verified. created_at is kept strictly increasing
            // (a millisecond later than the latest at least), so "latest" is never a tie.
            var createdAt = v.createdAt
            if let (id, latestCreatedAt, _, state) = latest {
                if state == "active" { try db.run("UPDATE verifications SET state = 'replaced' WHERE id = ?", [.text(id)]) }
                createdAt = max(createdAt, latestCreatedAt.adding(milliseconds: 1))
            }
            try db.run("""
                INSERT INTO verifications (id, phone, code_hash, created_at, expires_at, delivery, language_code, sealed_body, due_at, purpose, subject)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(v.id), .text(v.phone), .blob(v.codeHash), .int(createdAt.milliseconds), .int(v.expiresAt.milliseconds),
                      .text(v.outbox == nil ? "none" : "sending"), .text(v.outbox?.languageCode ?? ""),
                      v.outbox.map { .blob($0.sealedBody) } ?? .null, .int(leaseUntil.milliseconds), .text(v.purpose.rawValue),
                      Self.optional(v.subject)])
            if let limits { try countSend(limits, now: v.createdAt, in: db) }
            return .created
        }
    }

    public func redeemVerification(id: String, temporaryProof: Bool, now: Timestamp, maxAttempts: Int, limits: CheckLimits,
                                   codeMatches: ([UInt8]) -> Bool, signIn: NewSignIn) throws -> AccountOutcome {
        try write { db in
            let verified: (phone: String, subject: String?)
            switch try checkCode(id: id, purpose: temporaryProof ? .temporaryProof : .signIn, subject: nil, anySubject: temporaryProof,
                                 now: now, maxAttempts: maxAttempts, limits: limits, codeMatches: codeMatches, in: db) {
            case let .failure(rejection): return .rejected(rejection)
            case let .success(v): verified = v
            }
            let phone = verified.phone
            var user = try self.user(phoneNumber: phone, in: db)
            // A proof signs in the user who had the number when it was made, and no one else.
            if temporaryProof && user?.uid != verified.subject { return .rejected(.unusable(reason: "ownerChanged")) }
            if user?.disabled == true { return .refused(.userDisabled) }
            if user == nil, try isSecondFactorNumber(phone, in: db) { return .refused(.unsupportedFirstFactor) }
            try markUsed(id, in: db)
            let isNew = user == nil
            if user == nil {
                try db.run("INSERT INTO users (uid, phone, created_at, last_sign_in_at) VALUES (?, ?, ?, ?)",
                           [.text(signIn.newUid), .text(phone), .int(now.milliseconds), .int(now.milliseconds)])
                user = UserRecord(uid: signIn.newUid, phoneNumber: phone, displayName: nil, disabled: false,
                                  createdAt: now, lastSignInAt: now, validSince: nil)
            }
            guard let user else { return .refused(.userNotFound) }
            return try open(signIn, for: user, isNew: isNew, now: now, in: db)
        }
    }

    /// Opens `signIn`'s session, or its challenge if the user has second factors.
    func open(_ signIn: NewSignIn, for user: UserRecord, isNew: Bool, now: Timestamp, in db: Connection) throws -> AccountOutcome {
        var user = user
        if !user.factors.isEmpty, let challenge = signIn.challenge {
            try insertMFASession(challenge, uid: user.uid, provider: signIn.provider, developerClaims: signIn.developerClaims, now: now, in: db)
            return .secondFactorRequired(user)
        }
        // A new user's row was written with its sign-in time already.
        if !isNew {
            try db.run("UPDATE users SET last_sign_in_at = ? WHERE uid = ?", [.int(now.milliseconds), .text(user.uid)])
            user.lastSignInAt = now
        }
        try db.run("""
            INSERT INTO sessions (id, uid, secret_hash, created_at, auth_time, provider, developer_claims, second_factor, second_factor_enrollment)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(signIn.sessionId), .text(user.uid), .blob(signIn.refreshSecretHash), .int(now.milliseconds),
                  .int((signIn.authTime ?? now).milliseconds), .text(signIn.provider), Self.optional(signIn.developerClaims),
                  Self.optional(signIn.secondFactor), Self.optional(signIn.secondFactorEnrollment)])
        return .signedIn(SessionInfo(user: user, sessionId: signIn.sessionId, authTime: signIn.authTime ?? now, provider: signIn.provider,
                                     developerClaims: signIn.developerClaims, secondFactor: signIn.secondFactor,
                                     secondFactorEnrollment: signIn.secondFactorEnrollment), isNewUser: isNew)
    }

    static func optional(_ text: String?) -> SQLValue { text.map { .text($0) } ?? .null }

    /// Checks a code against an active verification of `purpose` (and `subject`) and counts a
    /// wrong one; the phone number it verified when it matches. Does not consume it.
    func checkCode(id: String, purpose: VerificationPurpose, subject: String?, anySubject: Bool = false, now: Timestamp,
                           maxAttempts: Int, limits: CheckLimits, codeMatches: ([UInt8]) -> Bool,
                           in db: Connection) throws -> Result<(phone: String, subject: String?), CodeRejection> {
        guard let (phone, codeHash, expiresAt, attempts, state, storedPurpose, storedSubject) = try db.row(
            "SELECT phone, code_hash, expires_at, attempts, state, purpose, subject FROM verifications WHERE id = ?", [.text(id)],
            { row in (row.text(0), row.blob(1), Timestamp(milliseconds: row.int(2)), Int(row.int(3)), row.text(4), row.text(5), row.optionalText(6)) })
        else { return .failure(.unknown) }
        // A code sent for another purpose (or another user's enrolment or challenge) is not this one's.
        guard storedPurpose == purpose.rawValue, anySubject || storedSubject == subject else { return .failure(.unusable(reason: "wrongPurpose")) }
        switch state {
        case "used": return .failure(.unusable(reason: "alreadyUsed"))
        case "dead": return .failure(.unusable(reason: "tooManyAttempts"))
        case "replaced": return .failure(.unusable(reason: "replaced"))
        default: break
        }
        if expiresAt <= now { return .failure(.unusable(reason: "expired")) }
        let counted = !limits.exempt.contains(phone)
        var hasFailures = false
        if counted {
            let run = try failureRun(phone, now: now, in: db)
            if let until = run.lockedUntil { return .failure(.numberLocked(phone: phone, until: until, justLocked: false)) }
            hasFailures = run.exists
            if let ip = limits.clientIp, let trip = try slidingLimit(.wrongCodesPerIp, key: ip, limit: limits.wrongCodesPerIpPer5Minutes, now: now, in: db) {
                return .failure(.limited(trip))
            }
        }
        guard codeMatches(codeHash) else {
            let used = attempts + 1
            try db.run("UPDATE verifications SET attempts = ?, state = ? WHERE id = ?",
                       [.int(Int64(used)), .text(used >= maxAttempts ? "dead" : "active"), .text(id)])
            if counted {
                if let ip = limits.clientIp, limits.wrongCodesPerIpPer5Minutes > 0 { try bump(.wrongCodesPerIp, key: ip, now: now, in: db) }
                if let until = try countFailure(phone, limits: limits, now: now, in: db) {
                    return .failure(.numberLocked(phone: phone, until: until, justLocked: true))
                }
            }
            return .failure(.wrongCode(attemptsLeft: max(0, maxAttempts - used)))
        }
        // A right code ends the number's run of wrong ones (most numbers have none to end).
        if hasFailures { try db.run("DELETE FROM number_failures WHERE phone = ?", [.text(phone)]) }
        return .success((phone, storedSubject))
    }

    /// Consumes a verification checkCode accepted, in the same transaction.
    func markUsed(_ id: String, in db: Connection) throws {
        try db.run("UPDATE verifications SET state = 'used' WHERE id = ?", [.text(id)])
    }

    /// Numbers enrolled as SMS second factors are never first factors (and the reverse).
    func isSecondFactorNumber(_ phone: String, in db: Connection) throws -> Bool {
        try db.row("SELECT 1 FROM factors WHERE phone = ? LIMIT 1", [.text(phone)]) { _ in true } ?? false
    }

    public func redeemForAccount(id: String, uid: String, presentedSession: String, change: AccountChange, now: Timestamp,
                                 maxAttempts: Int, limits: CheckLimits, codeMatches: ([UInt8]) -> Bool, signIn: NewSignIn) throws -> AccountOutcome {
        try write { db in
            if let refusal = try checkPresented(uid: uid, session: presentedSession, in: db) { return .refused(refusal) }
            let purpose: VerificationPurpose
            if case .enrollPhone = change { purpose = .enroll } else { purpose = .signIn }
            let phone: String
            switch try checkCode(id: id, purpose: purpose, subject: purpose == .enroll ? uid : nil, now: now,
                                 maxAttempts: maxAttempts, limits: limits, codeMatches: codeMatches, in: db) {
            case let .failure(rejection): return .rejected(rejection)
            case let .success(v): phone = v.phone
            }
            guard var user = try self.user(uid: uid, in: db) else { return .refused(.userNotFound) }
            let owner = try self.user(phoneNumber: phone, in: db)
            switch change {
            case let .link(proof):
                if user.phoneNumber != nil { return .refused(.providerAlreadyLinked) }
                if let owner {
                    try markUsed(id, in: db)
                    try db.run("""
                        INSERT INTO verifications (id, phone, code_hash, created_at, expires_at, delivery, language_code, due_at, purpose, subject)
                        VALUES (?, ?, ?, ?, ?, 'none', '', ?, 'temporaryProof', ?)
                        """, [.text(proof.verificationId), .text(phone), .blob(proof.codeHash), .int(now.milliseconds),
                              .int(proof.expiresAt.milliseconds), .int(now.milliseconds), .text(owner.uid)])
                    return .refused(.credentialAlreadyInUse)
                }
                if try isSecondFactorNumber(phone, in: db) { return .refused(.unsupportedFirstFactor) }
                try db.run("UPDATE users SET phone = ? WHERE uid = ?", [.text(phone), .text(uid)])
                user.phoneNumber = phone
            case .updatePhoneNumber:
                if let owner, owner.uid != uid { return .refused(.credentialAlreadyInUse) }
                if try isSecondFactorNumber(phone, in: db) { return .refused(.unsupportedFirstFactor) }
                try db.run("UPDATE users SET phone = ? WHERE uid = ?", [.text(phone), .text(uid)])
                user.phoneNumber = phone
            case .reauthenticate:
                if owner?.uid != uid { return .refused(.userMismatch) }
            case let .enrollPhone(factor):
                if owner != nil { return .refused(.unsupportedFirstFactor) }
                if user.factors.contains(where: { $0.phoneNumber == phone }) { return .refused(.secondFactorAlreadyEnrolled) }
                if user.factors.count >= factor.maxFactors { return .refused(.maximumSecondFactorCountExceeded) }
                user.factors.append(try insertFactor(factor, uid: uid, phone: phone, lastStep: 0, now: now, in: db))
            }
            try markUsed(id, in: db)
            return try open(signIn, for: user, isNew: false, now: now, in: db)
        }
    }

    func insertFactor(_ factor: NewFactor, uid: String, phone: String?, lastStep: Int64, now: Timestamp,
                              in db: Connection) throws -> EnrolledFactor {
        // Factors list in enrolment order: two enrolled in one millisecond still get distinct times.
        let latest = try db.row("SELECT max(enrolled_at) FROM factors WHERE uid = ?", [.text(uid)]) { $0.optionalInt(0) } ?? nil
        let now = Timestamp(milliseconds: max(now.milliseconds, (latest ?? 0) + 1))
        try db.run("""
            INSERT INTO factors (uid, enrollment_id, factor_id, display_name, phone, sealed_secret, last_step, enrolled_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(uid), .text(factor.enrollmentId), .text(factor.factorId), Self.optional(factor.displayName), Self.optional(phone),
                  factor.sealedSecret.map { .blob($0) } ?? .null, .int(lastStep), .int(now.milliseconds)])
        return EnrolledFactor(enrollmentId: factor.enrollmentId, factorId: factor.factorId, displayName: factor.displayName,
                              phoneNumber: phone, enrolledAt: now)
    }

    public func signInUser(_ signIn: NewSignIn, now: Timestamp) throws -> AccountOutcome {
        try write { db in
            let existing = try self.user(uid: signIn.newUid, in: db)
            if existing?.disabled == true { return .refused(.userDisabled) }
            if existing == nil {
                try db.run("INSERT INTO users (uid, created_at, last_sign_in_at) VALUES (?, ?, ?)",
                           [.text(signIn.newUid), .int(now.milliseconds), .int(now.milliseconds)])
            }
            let user = existing ?? UserRecord(uid: signIn.newUid, phoneNumber: nil, displayName: nil, disabled: false,
                                              createdAt: now, lastSignInAt: now, validSince: nil)
            return try open(signIn, for: user, isNew: existing == nil, now: now, in: db)
        }
    }

    // MARK: Outbox

    public func claimDueMessages(now: Timestamp, limit: Int, leaseMilliseconds: Int64) throws -> [OutboxMessage] {
        try write { db in
            var messages: [OutboxMessage] = []
            try db.rows("""
                SELECT id, phone, language_code, sealed_body, delivery_attempts FROM verifications
                WHERE delivery IN ('pending', 'sending') AND due_at <= ? AND state = 'active' AND expires_at > ?
                ORDER BY due_at LIMIT ?\(dialect.skipLocked)
                """, [.int(now.milliseconds), .int(now.milliseconds), .int(Int64(limit))]) { row in
                messages.append(OutboxMessage(verificationId: row.text(0), phone: row.text(1), languageCode: row.text(2),
                                              sealedBody: row.blob(3), attempts: Int(row.int(4))))
            }
            // A code that can no longer be used is not worth an SMS: give those messages up.
            try db.run("""
                UPDATE verifications SET delivery = 'failed', sealed_body = NULL
                WHERE delivery IN ('pending', 'sending') AND due_at <= ? AND (state != 'active' OR expires_at <= ?)
                """, [.int(now.milliseconds), .int(now.milliseconds)])
            for m in messages {
                // While leased, due_at is when the lease runs out and another worker may retry it.
                try db.run("UPDATE verifications SET delivery = 'sending', due_at = ? WHERE id = ?",
                           [.int(now.milliseconds + leaseMilliseconds), .text(m.verificationId)])
            }
            return messages
        }
    }

    public func recordDeliveries(_ outcomes: [DeliveryOutcome], now: Timestamp, maxAttempts: Int,
                                 backoff: (Int) -> Int64) throws {
        guard !outcomes.isEmpty else { return }
        try write { db in
            for outcome in outcomes {
                switch outcome {
                case let .sent(id):
                    try db.run("UPDATE verifications SET delivery = 'sent', sealed_body = NULL, delivery_attempts = delivery_attempts + 1 WHERE id = ?",
                               [.text(id)])
                case let .failed(id):
                    let attempts = Int(try db.row("SELECT delivery_attempts FROM verifications WHERE id = ?", [.text(id)]) { $0.int(0) } ?? 0) + 1
                    if attempts >= maxAttempts {
                        try db.run("UPDATE verifications SET delivery = 'failed', sealed_body = NULL, delivery_attempts = ? WHERE id = ?",
                                   [.int(Int64(attempts)), .text(id)])
                    } else {
                        try db.run("UPDATE verifications SET delivery = 'pending', delivery_attempts = ?, due_at = ? WHERE id = ?",
                                   [.int(Int64(attempts)), .int(now.milliseconds + backoff(attempts)), .text(id)])
                    }
                }
            }
        }
    }

    public func nextDeliveryDue() throws -> Timestamp? {
        try read { db in
            try db.row("SELECT min(due_at) FROM verifications WHERE delivery IN ('pending', 'sending')") {
                $0.optionalInt(0).map { Timestamp(milliseconds: $0) }
            } ?? nil
        }
    }

    public func releaseLeases(verificationIds: [String], now: Timestamp) throws {
        guard !verificationIds.isEmpty else { return }
        try write { db in
            for id in verificationIds {
                try db.run("UPDATE verifications SET delivery = 'pending', due_at = ? WHERE id = ? AND delivery = 'sending'",
                           [.int(now.milliseconds), .text(id)])
            }
        }
    }

    public func purge(verificationsExpiredBefore before: Timestamp, sessionsEndedBefore ended: Timestamp) throws {
        try write { db in
            // One engine at a time: the others' purges would only wait for this one's row locks.
            guard try db.tryTransactionLock("purge") else { return }
            // Expired before `before` means created before it: the time-ordered key bounds the scan.
            try db.run("DELETE FROM verifications WHERE id < ? AND expires_at < ? AND delivery NOT IN ('pending', 'sending')",
                       [.text(SortableID.prefix(before)), .int(before.milliseconds)])
            try db.run("DELETE FROM sessions WHERE revoked_at < ?", [.int(ended.milliseconds)])
            try db.run("DELETE FROM mfa_sessions WHERE id < ? AND expires_at < ?", [.text(SortableID.prefix(before)), .int(before.milliseconds)])
            // Used captcha tokens are keyed by their hash, not by time: this one scans (a small table).
            try db.run("DELETE FROM app_checks WHERE expires_at < ?", [.int(before.milliseconds)])
            // A counter is read until two of its windows have passed: daily ones are kept a day
            // longer than `before` (a day ago), the hourly and shorter ones until `before`.
            try db.run("DELETE FROM counters WHERE bucket < ?", [.int(before.milliseconds - LimitWindow.dayMilliseconds)])
            try db.run("DELETE FROM counters WHERE bucket < ? AND scope NOT LIKE 'project:%' AND scope NOT LIKE 'region:%'",
                       [.int(before.milliseconds)])
            // A run of wrong codes is forgotten a month after its last one (as ended sessions are).
            try db.run("DELETE FROM number_failures WHERE locked_until < ? AND last_failure_at < ?",
                       [.int(before.milliseconds), .int(ended.milliseconds)])
        }
    }

    // MARK: Sessions

    public func rotateRefreshToken(_ token: RefreshToken, secretMatches: ([UInt8]) -> Bool, newSecretHash: [UInt8],
                                   now: Timestamp) throws -> RefreshOutcome {
        try write { db in
            guard let (generation, secretHash, revokedReason) = try db.row(
                "SELECT generation, secret_hash, revoked_reason FROM sessions WHERE uid = ? AND id = ?",
                [.text(token.uid), .text(token.sessionId)], { ($0.int(0), $0.blob(1), $0.optionalText(2)) })
            else { return .unknown }
            if let revokedReason { return .revoked(reason: revokedReason) }
            if token.generation < generation {
                // A token that was already rotated away: someone is replaying it, so end the session.
                try db.run("UPDATE sessions SET revoked_at = ?, revoked_reason = 'reused' WHERE uid = ? AND id = ?",
                           [.int(now.milliseconds), .text(token.uid), .text(token.sessionId)])
                return .revoked(reason: "reused")
            }
            guard token.generation == generation, secretMatches(secretHash) else { return .unknown }
            guard let session = try liveSession(uid: token.uid, id: token.sessionId, in: db) else { return .unknown }
            if session.user.disabled { return .userDisabled }
            try db.run("UPDATE sessions SET generation = ?, secret_hash = ? WHERE uid = ? AND id = ?",
                       [.int(generation + 1), .blob(newSecretHash), .text(token.uid), .text(token.sessionId)])
            return .rotated(session)
        }
    }

    public func signOut(_ token: RefreshToken, secretMatches: ([UInt8]) -> Bool, now: Timestamp) throws {
        try write { db in
            guard let (generation, secretHash) = try db.row(
                "SELECT generation, secret_hash FROM sessions WHERE uid = ? AND id = ? AND revoked_at IS NULL",
                [.text(token.uid), .text(token.sessionId)], { ($0.int(0), $0.blob(1)) }),
                  generation == token.generation, secretMatches(secretHash)
            else { return }
            try db.run("UPDATE sessions SET revoked_at = ?, revoked_reason = 'signedOut' WHERE uid = ? AND id = ?",
                       [.int(now.milliseconds), .text(token.uid), .text(token.sessionId)])
        }
    }

    public func liveSession(uid: String, id: String) throws -> SessionInfo? {
        try read { try liveSession(uid: uid, id: id, in: $0) }
    }

    func liveSession(uid: String, id: String, in db: Connection) throws -> SessionInfo? {
        guard let user = try self.user(uid: uid, in: db) else { return nil }
        return try db.row("""
            SELECT auth_time, provider, developer_claims, second_factor, second_factor_enrollment FROM sessions
            WHERE uid = ? AND id = ? AND revoked_at IS NULL
            """, [.text(uid), .text(id)]) { row in
            SessionInfo(user: user, sessionId: id, authTime: Timestamp(milliseconds: row.int(0)), provider: row.text(1),
                        developerClaims: row.optionalText(2), secondFactor: row.optionalText(3), secondFactorEnrollment: row.optionalText(4))
        }
    }

    // MARK: Users

    private static var userColumns: String { "SELECT uid, phone, display_name, disabled, created_at, last_sign_in_at, valid_since, custom_claims FROM users" }

    static func userRecord(_ row: Connection.Row) -> UserRecord {
        UserRecord(uid: row.text(0), phoneNumber: row.optionalText(1), displayName: row.optionalText(2),
                   disabled: row.int(3) != 0, createdAt: Timestamp(milliseconds: row.int(4)),
                   lastSignInAt: row.optionalInt(5).map { Timestamp(milliseconds: $0) },
                   validSince: row.optionalInt(6).map { Timestamp(milliseconds: $0) }, customClaims: row.optionalText(7))
    }

    func user(uid: String, in db: Connection) throws -> UserRecord? {
        try withFactors(try db.row(Self.userColumns + " WHERE uid = ?", [.text(uid)], Self.userRecord), in: db)
    }

    func user(phoneNumber: String, in db: Connection) throws -> UserRecord? {
        try withFactors(try db.row(Self.userColumns + " WHERE phone = ?", [.text(phoneNumber)], Self.userRecord), in: db)
    }

    func withFactors(_ user: UserRecord?, in db: Connection) throws -> UserRecord? {
        guard var user else { return nil }
        try db.rows("""
            SELECT enrollment_id, factor_id, display_name, phone, enrolled_at FROM factors WHERE uid = ? ORDER BY enrolled_at, enrollment_id
            """, [.text(user.uid)]) { row in
            user.factors.append(EnrolledFactor(enrollmentId: row.text(0), factorId: row.text(1), displayName: row.optionalText(2),
                                               phoneNumber: row.optionalText(3), enrolledAt: Timestamp(milliseconds: row.int(4))))
        }
        return user
    }

    public func user(uid: String) throws -> UserRecord? { try read { try user(uid: uid, in: $0) } }

    public func user(phoneNumber: String) throws -> UserRecord? { try read { try user(phoneNumber: phoneNumber, in: $0) } }

    public func deleteUser(uid: String) throws -> Bool {
        try write { db in try db.run("DELETE FROM users WHERE uid = ?", [.text(uid)]) == 1 }
    }

    public func updateUser(uid: String, changes: UserChanges, now: Timestamp) throws -> UpdateUserOutcome {
        try write { db in
            guard try user(uid: uid, in: db) != nil else { return .notFound }
            if let phone = changes.phoneNumber {
                if let phone, let owner = try user(phoneNumber: phone, in: db), owner.uid != uid { return .phoneNumberTaken }
                if let phone, try isSecondFactorNumber(phone, in: db) { return .phoneIsSecondFactor }
                try db.run("UPDATE users SET phone = ? WHERE uid = ?", [phone.map { .text($0) } ?? .null, .text(uid)])
            }
            if let claims = changes.customClaims {
                try db.run("UPDATE users SET custom_claims = ? WHERE uid = ?", [claims.map { .text($0) } ?? .null, .text(uid)])
            }
            if let disabled = changes.disabled {
                try db.run("UPDATE users SET disabled = ? WHERE uid = ?", [.int(disabled ? 1 : 0), .text(uid)])
                if disabled {
                    try db.run("UPDATE sessions SET revoked_at = ?, revoked_reason = 'userDisabled' WHERE uid = ? AND revoked_at IS NULL",
                               [.int(now.milliseconds), .text(uid)])
                    try endChallenges(uid: uid, in: db)
                }
            }
            if let displayName = changes.displayName {
                try db.run("UPDATE users SET display_name = ? WHERE uid = ?", [displayName.map { .text($0) } ?? .null, .text(uid)])
            }
            guard let user = try user(uid: uid, in: db) else { return .notFound }
            return .updated(user)
        }
    }

    public func listUsers(afterUid: String?, limit: Int) throws -> [UserRecord] {
        try read { db in
            var users: [UserRecord] = []
            try db.rows(Self.userColumns + " WHERE uid > ? ORDER BY uid LIMIT ?", [.text(afterUid ?? ""), .int(Int64(limit))]) {
                users.append(Self.userRecord($0))
            }
            return try users.compactMap { try withFactors($0, in: db) }
        }
    }

    public func revokeSessions(uid: String, now: Timestamp) throws -> Bool {
        try write { db in
            guard try db.run("UPDATE users SET valid_since = ? WHERE uid = ?", [.int(now.milliseconds), .text(uid)]) == 1 else { return false }
            try db.run("UPDATE sessions SET revoked_at = ?, revoked_reason = 'revoked' WHERE uid = ? AND revoked_at IS NULL",
                       [.int(now.milliseconds), .text(uid)])
            try endChallenges(uid: uid, in: db)
            return true
        }
    }
}
