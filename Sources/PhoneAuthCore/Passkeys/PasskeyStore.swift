/// Passkeys and the challenges of their ceremonies. Part of `Store`; SQLStore implements it in
/// this folder's SQL.
package protocol PasskeyStore: AnyObject, Sendable {
    /// Keeps a ceremony's challenge (by its hash) until `expiresAt`, unless the client's address
    /// (`ipKey`) has made `ipLimit` app checks (push receipts, captcha challenges, passkey
    /// challenges) in the last hour: then the limit.
    func addPasskeyChallenge(
        hash: [UInt8], ceremony: ClientData.Ceremony, tenant: TenantID, uid: String?, expiresAt: Timestamp,
        now: Timestamp, ipKey: String?, ipLimit: Int
    ) throws -> LimitTrip?
    /// Uses up the challenge of `hash` if it is `ceremony`'s, in `tenant`, and unexpired: the user
    /// it was given to (`.some(nil)`: none named); nil when there is no such challenge.
    func takePasskeyChallenge(
        hash: [UInt8], ceremony: ClientData.Ceremony, tenant: TenantID, now: Timestamp
    ) throws -> String??
    /// Adds a passkey, while `presentedSession` (the enrolling one) is live, and opens `signIn`,
    /// the session that carries it on (for fresh tokens); nil if the user has `max` passkeys
    /// already; PasskeyRefusal.alreadyRegistered if the credential is known.
    func addPasskey(
        _ passkey: Passkey, max: Int, presentedSession: String, opening signIn: NewSignIn, now: Timestamp
    ) throws -> AccountOutcome?
    /// The passkey of credential `id` in `tenant`, or nil.
    func passkey(id: String, tenant: TenantID) throws -> Passkey?
    /// A user's passkeys, oldest first.
    func passkeys(uid: String, tenant: TenantID) throws -> [Passkey]
    /// Moves a passkey's counter from `from` to `to` and notes its use; false if another sign-in
    /// moved it first (the same assertion twice).
    func usePasskey(id: String, tenant: TenantID, from: UInt32, to: UInt32, at: Timestamp) throws -> Bool
    /// Removes a user's passkey; false if the user has none of that ID.
    func removePasskey(id: String, uid: String, tenant: TenantID) throws -> Bool
}
