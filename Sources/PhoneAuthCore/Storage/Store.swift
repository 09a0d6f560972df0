/// Where the engine keeps its state. Each operation is one transaction the engine needs.
/// Implementations are thread-safe and safe to share with other processes (on other machines,
/// for PostgreSQL) opening the same database. A transaction that conflicts with another runs
/// again, so the closures given to an operation (code and secret checks) may be called more than
/// once and must have no effect but their answer.
package protocol Store: AnyObject, Sendable {
    // Keys
    func secrets() throws -> [StoredSecret]
    /// Adds a secret unless one of the same kind already exists; returns the secrets of that kind
    /// (so two processes creating a key at once settle on one).
    func addSecretIfNoneOfKind(_ secret: StoredSecret) throws -> [StoredSecret]
    /// Rewrites every sealed value in one transaction (SQLStore+Reseal).
    func reseal(secrets: (StoredSecret) throws -> [UInt8], column: (SealedColumn, String, [UInt8]) throws -> [UInt8]) throws
    /// Adds a signing key and schedules the others' retirement (see SQLStore).
    func rotateSigningKey(_ secret: StoredSecret, retireOthersAt: Timestamp, ifNewestBefore: Timestamp?) throws -> Bool
    /// Ends a signing key now; whether it was live.
    func retireSigningKey(kid: String, now: Timestamp) throws -> Bool

    // Verifications
    /// Starts `verification` unless an active one for the same number was created after
    /// `reuseIfCreatedAfter` (nil: never reuse); a new one replaces older active ones. The SMS is queued in the same
    /// transaction, already leased to this engine's worker by `lease` (the worker is handed the
    /// message directly; if this process dies, any worker takes it once the lease runs out).
    /// `limits` (nil for test numbers) are checked and counted in the same transaction, so they
    /// hold across threads and processes.
    func startVerification(_ verification: NewVerification, reuseIfCreatedAfter: Timestamp?, lease: DeliveryLease,
                           limits: SendLimits?) throws -> VerificationStart
    /// Checks a first-factor code and, if it matches, consumes the verification, creates the user
    /// on first sign-in and opens a session (or, for a user with second factors, the challenge
    /// `signIn.challenge`), all in one transaction. A wrong code counts an attempt.
    /// With `temporaryProof`, `id` names a temporary proof, valid while its user still has the number.
    /// Every method that checks an SMS code applies `limits`: a locked number or an IP with too
    /// many wrong codes is refused before the code is compared; wrong codes are counted.
    func redeemVerification(id: String, temporaryProof: Bool, now: Timestamp, maxAttempts: Int, limits: CheckLimits,
                            codeMatches: ([UInt8]) -> Bool, signIn: NewSignIn) throws -> AccountOutcome
    /// Checks a code as `redeemVerification` does and applies it to the signed-in user `uid`,
    /// whose session `presentedSession` must still be live: links or changes its phone number,
    /// re-authenticates it, or enrols the number as a second factor; then opens the session
    /// `signIn`. Refusals leave the code unused, except credentialAlreadyInUse, which consumes it
    /// and stores the temporary proof `change` carries.
    func redeemForAccount(id: String, uid: String, presentedSession: String, change: AccountChange, now: Timestamp, maxAttempts: Int,
                          limits: CheckLimits, codeMatches: ([UInt8]) -> Bool, signIn: NewSignIn) throws -> AccountOutcome
    func verificationStatus(id: String, now: Timestamp) throws -> VerificationStatus?
    /// Signs in the user `signIn.newUid` (a host's own uid, from a custom token), creating it on
    /// first sign-in, and opens a session or its challenge, in one transaction.
    func signInUser(_ signIn: NewSignIn, now: Timestamp) throws -> AccountOutcome

    // Multi-factor
    /// Opens a pending multi-factor session for `uid` (the TOTP enrolment's). Like the methods
    /// below that take `presentedSession`, refuses if that session of `uid` has ended.
    func openMFASession(_ session: NewMFASession, uid: String, presentedSession: String, provider: SignInProvider,
                        now: Timestamp) throws -> AccountOutcome
    /// `.done` with the user an active, unexpired multi-factor session of `kind` belongs to, or why not.
    func mfaSessionUser(id: String, kind: MFASessionKind, now: Timestamp) throws -> AccountOutcome
    /// Completes a challenge with a second factor: consumes the session and opens `signIn`
    /// (whose second factor the store fills in). Wrong codes count against the verification
    /// (phone) or the session and the factor (TOTP: consecutive wrong codes lock the factor, as
    /// FactorLockout says).
    func resolveSecondFactor(sessionId: String, proof: SecondFactorProof, now: Timestamp, maxAttempts: Int,
                             limits: CheckLimits, signIn: NewSignIn) throws -> AccountOutcome
    /// Enrols the TOTP factor whose secret the session `sessionId` of `uid` holds, if `check`
    /// accepts a code for it, and opens `signIn`.
    func enrollTotp(sessionId: String, uid: String, presentedSession: String, check: TotpCheck, factor: NewFactor, now: Timestamp,
                    maxAttempts: Int, signIn: NewSignIn) throws -> AccountOutcome
    /// Removes a factor and opens `signIn` (a continuation of the presented session).
    func unenroll(uid: String, presentedSession: String, enrollmentId: String, signIn: NewSignIn, now: Timestamp) throws -> AccountOutcome
    func unlinkPhone(uid: String, presentedSession: String) throws -> AccountOutcome

    // App verification
    /// Records a push receipt (`secretHash` set) or a captcha challenge (`scheme` set), unless the
    /// client's address (`ipKey`) has made `ipLimit` of them in the last hour: then the limit.
    func addAppCheck(id: String, kind: AppCheckKind, secretHash: [UInt8]?, scheme: String?, expiresAt: Timestamp,
                     now: Timestamp, ipKey: String?, ipLimit: Int) throws -> LimitTrip?
    /// Records `id` (a captcha token's hash) as used; false if it already was.
    func claimAppCheck(id: String, kind: AppCheckKind, expiresAt: Timestamp) throws -> Bool
    /// Uses up the active, unexpired check `id` of `kind` if `accepts(secretHash, scheme)`; with
    /// `spendOnMismatch` a wrong answer uses it up too (a secret gets one guess). nil when it was
    /// accepted, else why not.
    func useAppCheck(id: String, kind: AppCheckKind, now: Timestamp, spendOnMismatch: Bool,
                     accepts: ([UInt8]?, String?) -> Bool) throws -> AppCheckRefusal?

    // Outbox
    /// Leases up to `limit` messages due for delivery so no other worker sends them meanwhile.
    func claimDueMessages(now: Timestamp, limit: Int, lease: DeliveryLease) throws -> [OutboxMessage]
    /// Records outcomes of messages `leaseOwner` still holds (others are left as they are): a
    /// sent or undeliverable message's body is erased; a failed one is due again at its retry
    /// time, or given up (and erased) after `maxAttempts`.
    func recordDeliveries(_ outcomes: [DeliveryOutcome], now: Timestamp, maxAttempts: Int, leaseOwner: String) throws
    /// When the earliest pending message becomes due, if any.
    func nextDeliveryDue() throws -> Timestamp?
    /// Gives leased messages back, due now, for messages this engine will not deliver after all.
    func releaseLeases(verificationIds: [String], now: Timestamp, leaseOwner: String) throws
    /// Extends the leases of messages this engine still holds (queued, or being sent).
    func renewLeases(verificationIds: [String], lease: DeliveryLease) throws

    // Sessions
    /// Moves the session named by `token` to its next generation (`next`: the new secret's hash,
    /// and the secret sealed, kept to be handed out again) if `token` is its current one
    /// (`secretMatches` checks the stored hash in constant time). The previous generation
    /// presented again within `reuseMilliseconds` of the rotation gets the current token again;
    /// any other earlier generation ends the session as reused.
    func rotateRefreshToken(_ token: RefreshToken, secretMatches: ([UInt8]) -> Bool, next: (hash: [UInt8], sealed: [UInt8]?),
                            reuseMilliseconds: Int64, now: Timestamp) throws -> RefreshOutcome
    /// Ends the session if `token` is its current one; anything else is ignored.
    func signOut(_ token: RefreshToken, secretMatches: ([UInt8]) -> Bool, now: Timestamp) throws
    /// The session `id` of `uid` if it has not ended, with its user.
    func liveSession(uid: String, id: String) throws -> SessionInfo?

    // Users
    func user(uid: String) throws -> UserRecord?
    func user(phoneNumber: String) throws -> UserRecord?
    func deleteUser(uid: String) throws -> Bool
    /// Applies `changes`; disabling ends the user's sessions.
    func updateUser(uid: String, changes: UserChanges, now: Timestamp) throws -> UpdateUserOutcome
    /// Adds a user with `changes` applied (not signed in yet); refuses a uid or number in use.
    func createUser(uid: String, changes: UserChanges, now: Timestamp) throws -> UpdateUserOutcome
    /// Counts for operators (SQLStore+Status).
    func status(now: Timestamp) throws -> StoreStatus
    /// Adds or replaces an exported user with its phone factors (SQLStore+Import).
    func importUser(_ user: UserRecord) throws -> UpdateUserOutcome
    /// Up to `limit` users in uid order, starting after `afterUid`.
    func listUsers(afterUid: String?, limit: Int) throws -> [UserRecord]
    /// Ends every session of the user and marks tokens issued before `now` revoked.
    func revokeSessions(uid: String, now: Timestamp) throws -> Bool

    /// Ends a number's run of wrong codes and its lockout (an admin's remedy); whether it had one.
    func unlockPhoneNumber(_ phone: String) throws -> Bool

    /// Deletes verifications that expired before `verificationsExpiredBefore` (their SMS finished),
    /// sessions that ended before `sessionsEndedBefore`, expired multi-factor sessions and spent
    /// limit counters. Runs of wrong codes are kept until a right code or an admin ends them.
    func purge(verificationsExpiredBefore: Timestamp, sessionsEndedBefore: Timestamp) throws

    /// Statements, transactions and retries since the store opened.
    func statistics() -> StoreStatistics
    func close()
}

/// What `redeemForAccount` does with a verified phone number.
package enum AccountChange: Sendable {
    /// Adds the number to a user without one; if another user has it, the verification becomes
    /// `proof`, with which the caller may sign in to that user instead.
    case link(proof: TemporaryProof)
    /// Replaces the user's number; if another user has the new one, `proof` as for `link`.
    case updatePhoneNumber(proof: TemporaryProof)
    /// The number must be the user's own.
    case reauthenticate
    case enrollPhone(NewFactor)
}

/// A temporary proof: a verification of a number, created without SMS, whose code is a secret
/// handed to the caller.
package struct TemporaryProof: Sendable {
    package var verificationId: String
    package var codeHash: [UInt8]
    package var expiresAt: Timestamp
}

/// Checks a TOTP code against a user's sealed secret: the time step it matches, if later than `lastStep`.
package typealias TotpCheck = (_ sealedSecret: [UInt8], _ uid: String, _ lastStep: Int64) -> Int64?

/// The second factor presented to complete a challenge.
package enum SecondFactorProof {
    case phone(verificationId: String, codeMatches: ([UInt8]) -> Bool)
    case totp(enrollmentId: String, check: TotpCheck)
}
