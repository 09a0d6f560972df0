/// The embedded store: one SQLite file in WAL mode. One connection per engine, serialised by a
/// lock; other processes on the same file are coordinated by SQLite's own locking.
public final class SQLiteStore: Store, @unchecked Sendable {
    private let lock = Lock()
    private let db: SQLiteConnection
    private var closed = false

    public init(path: String, synchronous: EngineConfig.Synchronous) throws {
        db = try SQLiteConnection(path: path, synchronous: synchronous)
        do { try SQLiteMigrations.apply(to: db) } catch { db.close(); throw error }
    }

    public func close() {
        lock.withLock {
            if !closed { db.close(); closed = true }
        }
    }

    /// Runs `body` in a transaction under the lock.
    private func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try lock.withLock { () throws -> T in
            guard !closed else { throw PhoneAuthError(.storageError, "The engine is closed.") }
            return try db.transaction { try body(db) }
        }
    }

    private func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try lock.withLock { () throws -> T in
            guard !closed else { throw PhoneAuthError(.storageError, "The engine is closed.") }
            return try body(db)
        }
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

    public func startVerification(_ v: NewVerification, reuseIfCreatedAfter: Timestamp?, leaseUntil: Timestamp) throws -> VerificationStart {
        try write { db in
            let latest = try db.row(
                "SELECT id, created_at, expires_at, state FROM verifications WHERE phone = ? ORDER BY created_at DESC LIMIT 1",
                [.text(v.phone)]) { row in (row.text(0), Timestamp(milliseconds: row.int(1)), Timestamp(milliseconds: row.int(2)), row.text(3)) }
            if let (id, createdAt, expiresAt, state) = latest, let reuseIfCreatedAfter, createdAt > reuseIfCreatedAfter {
                if state == "active" && expiresAt > v.createdAt { return .reused(id: id, createdAt: createdAt, expiresAt: expiresAt) }
                // Five wrong codes must not buy five more at once: a new code waits for the window.
                if state == "dead" { return .blocked(since: createdAt) }
            }
            // A number has at most one active verification, its latest: replacing it is one row,
            // however often the number is verified. created_at is kept strictly increasing per
            // number (a millisecond later than the latest at least), so "latest" is never a tie.
            var createdAt = v.createdAt
            if let (id, latestCreatedAt, _, state) = latest {
                if state == "active" { try db.run("UPDATE verifications SET state = 'replaced' WHERE id = ?", [.text(id)]) }
                createdAt = max(createdAt, latestCreatedAt.adding(milliseconds: 1))
            }
            try db.run("""
                INSERT INTO verifications (id, phone, code_hash, created_at, expires_at, delivery, language_code, sealed_body, due_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(v.id), .text(v.phone), .blob(v.codeHash), .int(createdAt.milliseconds), .int(v.expiresAt.milliseconds),
                      .text(v.outbox == nil ? "none" : "sending"), .text(v.outbox?.languageCode ?? ""),
                      v.outbox.map { .blob($0.sealedBody) } ?? .null, .int(leaseUntil.milliseconds)])
            return .created
        }
    }

    public func redeemVerification(id: String, now: Timestamp, maxAttempts: Int,
                                   codeMatches: ([UInt8]) -> Bool, signIn: NewSignIn) throws -> RedeemOutcome {
        try write { db in
            guard let (phone, codeHash, expiresAt, attempts, state) = try db.row(
                "SELECT phone, code_hash, expires_at, attempts, state FROM verifications WHERE id = ?", [.text(id)],
                { row in (row.text(0), row.blob(1), Timestamp(milliseconds: row.int(2)), Int(row.int(3)), row.text(4)) })
            else { return .unknown }
            switch state {
            case "used": return .unusable(reason: "alreadyUsed")
            case "dead": return .unusable(reason: "tooManyAttempts")
            case "replaced": return .unusable(reason: "replaced")
            default: break
            }
            if expiresAt <= now { return .unusable(reason: "expired") }
            guard codeMatches(codeHash) else {
                let used = attempts + 1
                try db.run("UPDATE verifications SET attempts = ?, state = ? WHERE id = ?",
                           [.int(Int64(used)), .text(used >= maxAttempts ? "dead" : "active"), .text(id)])
                return .wrongCode(attemptsLeft: max(0, maxAttempts - used))
            }
            var user = try self.user(phoneNumber: phone, in: db)
            if user?.disabled == true { return .userDisabled }
            // The state check in the WHERE clause makes consumption atomic across processes.
            guard try db.run("UPDATE verifications SET state = 'used' WHERE id = ? AND state = 'active'", [.text(id)]) == 1 else {
                return .unusable(reason: "alreadyUsed")
            }
            let isNew = user == nil
            if isNew {
                try db.run("INSERT INTO users (uid, phone, created_at, last_sign_in_at) VALUES (?, ?, ?, ?)",
                           [.text(signIn.newUid), .text(phone), .int(now.milliseconds), .int(now.milliseconds)])
                user = UserRecord(uid: signIn.newUid, phoneNumber: phone, displayName: nil, disabled: false,
                                  createdAt: now, lastSignInAt: now, validSince: nil)
            } else if var existing = user {
                try db.run("UPDATE users SET last_sign_in_at = ? WHERE uid = ?", [.int(now.milliseconds), .text(existing.uid)])
                existing.lastSignInAt = now
                user = existing
            }
            guard let user else { return .unknown }
            try insertSession(signIn, uid: user.uid, now: now, in: db)
            return .signedIn(user, isNewUser: isNew)
        }
    }

    private func insertSession(_ signIn: NewSignIn, uid: String, now: Timestamp, in db: SQLiteConnection) throws {
        try db.run("""
            INSERT INTO sessions (id, uid, secret_hash, created_at, auth_time, provider, developer_claims) VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.text(signIn.sessionId), .text(uid), .blob(signIn.refreshSecretHash), .int(now.milliseconds), .int(now.milliseconds),
                  .text(signIn.provider), signIn.developerClaims.map { .text($0) } ?? .null])
    }

    public func signInUser(_ signIn: NewSignIn, now: Timestamp) throws -> UserSignInOutcome {
        try write { db in
            let existing = try self.user(uid: signIn.newUid, in: db)
            if existing?.disabled == true { return .userDisabled }
            if existing == nil {
                try db.run("INSERT INTO users (uid, created_at) VALUES (?, ?)", [.text(signIn.newUid), .int(now.milliseconds)])
            }
            try db.run("UPDATE users SET last_sign_in_at = ? WHERE uid = ?", [.int(now.milliseconds), .text(signIn.newUid)])
            try insertSession(signIn, uid: signIn.newUid, now: now, in: db)
            guard let user = try self.user(uid: signIn.newUid, in: db) else { throw PhoneAuthError(.internalError, "The user vanished.") }
            return .signedIn(user, isNewUser: existing == nil)
        }
    }

    public func verificationStatus(id: String, now: Timestamp) throws -> VerificationStatus? {
        try read { db in
            try db.row("""
                SELECT phone, state, expires_at, delivery, delivery_attempts FROM verifications WHERE id = ?
                """, [.text(id)]) { row in
                let expiresAt = Timestamp(milliseconds: row.int(2))
                var state = row.text(1)
                if state == "active" && expiresAt <= now { state = "expired" }
                return VerificationStatus(id: id, phone: row.text(0), state: state, expiresAt: expiresAt,
                                          delivery: row.text(3) == "sending" ? "pending" : row.text(3),
                                          attempts: Int(row.optionalInt(4) ?? 0))
            }
        }
    }

    // MARK: Outbox

    public func claimDueMessages(now: Timestamp, limit: Int, leaseMilliseconds: Int64) throws -> [OutboxMessage] {
        try write { db in
            var messages: [OutboxMessage] = []
            try db.rows("""
                SELECT id, phone, language_code, sealed_body, delivery_attempts FROM verifications
                WHERE delivery IN ('pending', 'sending') AND due_at <= ? AND state = 'active' AND expires_at > ?
                ORDER BY due_at LIMIT ?
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
            // Expired before `before` means created before it: the time-ordered key bounds the scan.
            try db.run("DELETE FROM verifications WHERE id < ? AND expires_at < ? AND delivery NOT IN ('pending', 'sending')",
                       [.text(SortableID.prefix(before)), .int(before.milliseconds)])
            try db.run("DELETE FROM sessions WHERE revoked_at < ?", [.int(ended.milliseconds)])
        }
    }

    // MARK: Sessions

    public func rotateRefreshToken(_ token: RefreshToken, secretMatches: ([UInt8]) -> Bool, newSecretHash: [UInt8],
                                   now: Timestamp) throws -> RefreshOutcome {
        try write { db in
            guard let (generation, secretHash, authTime, revokedReason, provider, developerClaims) = try db.row(
                "SELECT generation, secret_hash, auth_time, revoked_reason, provider, developer_claims FROM sessions WHERE uid = ? AND id = ?",
                [.text(token.uid), .text(token.sessionId)],
                { ($0.int(0), $0.blob(1), Timestamp(milliseconds: $0.int(2)), $0.optionalText(3), $0.text(4), $0.optionalText(5)) })
            else { return .unknown }
            if let revokedReason { return .revoked(reason: revokedReason) }
            if token.generation < generation {
                // A token that was already rotated away: someone is replaying it, so end the session.
                try db.run("UPDATE sessions SET revoked_at = ?, revoked_reason = 'reused' WHERE uid = ? AND id = ?",
                           [.int(now.milliseconds), .text(token.uid), .text(token.sessionId)])
                return .revoked(reason: "reused")
            }
            guard token.generation == generation, secretMatches(secretHash) else { return .unknown }
            guard let user = try self.user(uid: token.uid, in: db) else { return .unknown }
            if user.disabled { return .userDisabled }
            try db.run("UPDATE sessions SET generation = ?, secret_hash = ? WHERE uid = ? AND id = ?",
                       [.int(generation + 1), .blob(newSecretHash), .text(token.uid), .text(token.sessionId)])
            return .rotated(SessionInfo(user: user, authTime: authTime, provider: provider, developerClaims: developerClaims))
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

    // MARK: Users

    private static let userColumns = "SELECT uid, phone, display_name, disabled, created_at, last_sign_in_at, valid_since, custom_claims FROM users"

    private static func userRecord(_ row: SQLRow) -> UserRecord {
        UserRecord(uid: row.text(0), phoneNumber: row.optionalText(1), displayName: row.optionalText(2),
                   disabled: row.int(3) != 0, createdAt: Timestamp(milliseconds: row.int(4)),
                   lastSignInAt: row.optionalInt(5).map { Timestamp(milliseconds: $0) },
                   validSince: row.optionalInt(6).map { Timestamp(milliseconds: $0) }, customClaims: row.optionalText(7))
    }

    private func user(uid: String, in db: SQLiteConnection) throws -> UserRecord? {
        try db.row(Self.userColumns + " WHERE uid = ?", [.text(uid)], Self.userRecord)
    }

    private func user(phoneNumber: String, in db: SQLiteConnection) throws -> UserRecord? {
        try db.row(Self.userColumns + " WHERE phone = ?", [.text(phoneNumber)], Self.userRecord)
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
            return users
        }
    }

    public func revokeSessions(uid: String, now: Timestamp) throws -> Bool {
        try write { db in
            guard try db.run("UPDATE users SET valid_since = ? WHERE uid = ?", [.int(now.milliseconds), .text(uid)]) == 1 else { return false }
            try db.run("UPDATE sessions SET revoked_at = ?, revoked_reason = 'revoked' WHERE uid = ? AND revoked_at IS NULL",
                       [.int(now.milliseconds), .text(uid)])
            return true
        }
    }
}
