/// Second factors: multi-factor sessions, enrolment, removal and completing a challenge.
/// Part of `Store`; SQLStore implements it in this folder's SQL (see Storage/Store.swift).
package protocol MultiFactorStore: AnyObject, Sendable {
    /// Opens a pending multi-factor session for `uid` (the TOTP enrolment's). Like the methods
    /// below that take `presentedSession`, refuses if that session of `uid` has ended.
    func openMFASession(
        _ session: NewMFASession, uid: String, presentedSession: String, provider: SignInProvider,
        now: Timestamp
    ) throws -> AccountOutcome
    /// `.done` with the user an active, unexpired multi-factor session of `kind` belongs to, or why not.
    /// (Of `tenant`: another pool's session is refused as an unknown one is.)
    func mfaSessionUser(id: String, kind: MFASessionKind, in pool: Pool, now: Timestamp) throws -> AccountOutcome
    /// Completes a challenge with a second factor: consumes the session and opens `signIn`
    /// (whose second factor the store fills in). Wrong codes count against the verification
    /// (phone) or the session and the factor (TOTP: consecutive wrong codes lock the factor, as
    /// FactorLockout says).
    func resolveSecondFactor(
        sessionId: String, proof: SecondFactorProof, now: Timestamp, maxAttempts: Int,
        limits: CheckLimits, signIn: NewSignIn
    ) throws -> AccountOutcome
    /// Enrols the TOTP factor whose secret the session `sessionId` of `uid` holds, if `check`
    /// accepts a code for it, and opens `signIn`.
    func enrollTotp(
        sessionId: String, uid: String, presentedSession: String, check: TotpCheck, factor: NewFactor, now: Timestamp,
        maxAttempts: Int, signIn: NewSignIn
    ) throws -> AccountOutcome
    /// Removes a factor and opens `signIn` (a continuation of the presented session).
    func unenroll(
        uid: String, presentedSession: String, enrollmentId: String, signIn: NewSignIn, now: Timestamp
    ) throws -> AccountOutcome
}
