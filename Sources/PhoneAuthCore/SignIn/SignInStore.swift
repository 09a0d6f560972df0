/// Signing in: a first-factor code or a custom token turned into a session.
/// Part of `Store`; SQLStore implements it in this folder's SQL (see Storage/Store.swift).
package protocol SignInStore: AnyObject, Sendable {
    /// Checks a first-factor code and, if it matches, consumes the verification, creates the user
    /// on first sign-in and opens a session (or, for a user with second factors, the challenge
    /// `signIn.challenge`), all in one transaction. A wrong code counts an attempt.
    /// With `temporaryProof`, `id` names a temporary proof, valid while its user still has the number.
    /// Every method that checks an SMS code applies `limits`: a locked number or an IP with too
    /// many wrong codes is refused before the code is compared; wrong codes are counted.
    /// A code used by a sign-in since `retrySince` is accepted again (wrong ones still counted):
    /// the session that sign-in opened is resumed, for a retry whose first answer was lost.
    func redeemVerification(
        id: String, temporaryProof: Bool, now: Timestamp, maxAttempts: Int, limits: CheckLimits,
        codeMatches: ([UInt8]) -> Bool, signIn: NewSignIn, retrySince: Timestamp?
    ) throws -> AccountOutcome
    /// The second transaction of a sign-in that answered `approvalNeeded`, once the hooks let it
    /// through with `verdict`: opens its session if the account is still as they saw it, or
    /// answers `approvalNeeded` again with the account as it now is.
    func completeSignIn(_ pending: PendingSignIn, verdict: HookVerdict, now: Timestamp) throws -> AccountOutcome
    /// Signs in the user `signIn.newUid` (a host's own uid, from a custom token, created on first
    /// sign-in; or a user who proved `proof`, such as a passkey), and opens a session or its
    /// challenge in one transaction; answers `approvalNeeded` when the sign-in hooks judge it.
    func signInUser(_ signIn: NewSignIn, proved proof: PendingSignIn.Proof?, now: Timestamp) throws -> AccountOutcome
}
