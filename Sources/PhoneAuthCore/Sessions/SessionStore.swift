/// Sessions: refresh-token rotation, signing out, revocation and live sessions.
/// Part of `Store`; SQLStore implements it in this folder's SQL (see Storage/Store.swift).
package protocol SessionStore: AnyObject, Sendable {
    /// Moves the session named by `token` to its next generation (`next`: the new secret's hash,
    /// and the secret sealed, kept to be handed out again) if `token` is its current one
    /// (`secretMatches` checks the stored hash in constant time). The previous generation
    /// presented again within `reuseMilliseconds` of the rotation gets the current token again;
    /// any other earlier generation ends the session as reused.
    /// A session whose user is not of the tenant the caller names (if it names one) is `unknown`,
    /// and left as it is.
    func rotateRefreshToken(
        _ token: RefreshToken, secretMatches: ([UInt8]) -> Bool, next: (hash: [UInt8], sealed: [UInt8]?),
        reuseMilliseconds: Int64, for caller: Caller, now: Timestamp
    ) throws -> RefreshOutcome
    /// Ends the session if `token` is its current one (and its user of the tenant the caller
    /// names, if it names one); anything else is ignored.
    func signOut(_ token: RefreshToken, secretMatches: ([UInt8]) -> Bool, for caller: Caller, now: Timestamp) throws
    /// The session `id` of `uid` if it has not ended, with its user.
    func liveSession(uid: String, id: String) throws -> SessionInfo?
    /// Ends every session of the user `uid` of `pool` and marks tokens issued before `now` revoked.
    func revokeSessions(uid: String, in pool: Pool, now: Timestamp) throws -> Bool
    /// The sessions of the user `uid` of `tenant` that have not ended, newest first; nil when
    /// the tenant has no such user.
    func liveSessions(uid: String, tenant: TenantID) throws -> [ListedSession]?
}
