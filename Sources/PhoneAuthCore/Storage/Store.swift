/// Where the engine keeps its state. Each operation is one transaction the engine needs, so a
/// PostgreSQL implementation can follow without touching the engine. Implementations are
/// thread-safe and safe to share with other processes opening the same database.
public protocol Store: AnyObject, Sendable {
    // Keys
    func secrets() throws -> [StoredSecret]
    /// Adds a secret unless one of the same kind already exists; returns the secrets of that kind
    /// (so two processes creating a key at once settle on one).
    func addSecretIfNoneOfKind(_ secret: StoredSecret) throws -> [StoredSecret]

    // Verifications
    /// Starts `verification` unless an active one for the same number was created after
    /// `reuseIfCreatedAfter` (nil: never reuse); a new one replaces older active ones. The SMS is queued in the same
    /// transaction, already leased to this engine until `leaseUntil` (its worker is handed the
    /// message directly; if this process dies, any worker takes it once the lease runs out).
    func startVerification(_ verification: NewVerification, reuseIfCreatedAfter: Timestamp?, leaseUntil: Timestamp) throws -> VerificationStart
    /// Checks a code and, if it matches, consumes the verification, creates the user on first
    /// sign-in and opens a session, all in one transaction. A wrong code counts an attempt.
    func redeemVerification(id: String, now: Timestamp, maxAttempts: Int,
                            codeMatches: ([UInt8]) -> Bool, signIn: NewSignIn) throws -> RedeemOutcome
    func verificationStatus(id: String, now: Timestamp) throws -> VerificationStatus?
    /// Signs in the user `signIn.newUid` (a host's own uid, from a custom token), creating it on
    /// first sign-in, and opens a session, in one transaction.
    func signInUser(_ signIn: NewSignIn, now: Timestamp) throws -> UserSignInOutcome

    // Outbox
    /// Leases up to `limit` messages due for delivery so no other worker sends them meanwhile.
    func claimDueMessages(now: Timestamp, limit: Int, leaseMilliseconds: Int64) throws -> [OutboxMessage]
    /// Records outcomes: a sent message's body is erased; a failed one is retried after
    /// `backoff(attempts)` milliseconds, or given up (and erased) after `maxAttempts`.
    func recordDeliveries(_ outcomes: [DeliveryOutcome], now: Timestamp, maxAttempts: Int,
                          backoff: (Int) -> Int64) throws
    /// When the earliest pending message becomes due, if any.
    func nextDeliveryDue() throws -> Timestamp?
    /// Gives leased messages back, due now, for messages this engine will not deliver after all.
    func releaseLeases(verificationIds: [String], now: Timestamp) throws

    // Sessions
    /// Moves the session named by `token` to its next generation if `token` is its current one
    /// (`secretMatches` checks the stored hash in constant time); an earlier generation ends the
    /// session as reused.
    func rotateRefreshToken(_ token: RefreshToken, secretMatches: ([UInt8]) -> Bool, newSecretHash: [UInt8],
                            now: Timestamp) throws -> RefreshOutcome
    /// Ends the session if `token` is its current one; anything else is ignored.
    func signOut(_ token: RefreshToken, secretMatches: ([UInt8]) -> Bool, now: Timestamp) throws

    // Users
    func user(uid: String) throws -> UserRecord?
    func user(phoneNumber: String) throws -> UserRecord?
    func deleteUser(uid: String) throws -> Bool
    /// Applies `changes`; disabling ends the user's sessions.
    func updateUser(uid: String, changes: UserChanges, now: Timestamp) throws -> UpdateUserOutcome
    /// Up to `limit` users in uid order, starting after `afterUid`.
    func listUsers(afterUid: String?, limit: Int) throws -> [UserRecord]
    /// Ends every session of the user and marks tokens issued before `now` revoked.
    func revokeSessions(uid: String, now: Timestamp) throws -> Bool

    /// Deletes verifications that expired before `verificationsExpiredBefore` (their SMS finished)
    /// and sessions that ended before `sessionsEndedBefore`.
    func purge(verificationsExpiredBefore: Timestamp, sessionsEndedBefore: Timestamp) throws

    func close()
}
