/// Accounts: reading and changing users, and the changes a signed-in user proves with a code.
/// Part of `Store`; SQLStore implements it in this folder's SQL (see Storage/Store.swift).
package protocol AccountStore: AnyObject, Sendable {
    /// Checks a code as `redeemVerification` does and applies it to the signed-in user `uid`,
    /// whose session `presentedSession` must still be live: links or changes its phone number,
    /// re-authenticates it, or enrols the number as a second factor; then opens the session
    /// `signIn`. Refusals leave the code unused, except credentialAlreadyInUse, which consumes it
    /// and stores the temporary proof `change` carries.
    func redeemForAccount(
        id: String, uid: String, presentedSession: String, change: AccountChange, now: Timestamp, maxAttempts: Int,
        limits: CheckLimits, codeMatches: ([UInt8]) -> Bool, signIn: NewSignIn
    ) throws -> AccountOutcome
    func unlinkPhone(uid: String, presentedSession: String, now: Timestamp) throws -> AccountOutcome
    /// The user `key` names if it is of `tenant`. Every lookup names the tenant (the tenant wall):
    /// there is no lookup that could forget it.
    func user(_ key: UserKey, tenant: TenantID) throws -> UserRecord?
    /// Deletes the user `uid` if it is of `pool` (the uid ops of an admin name the pool).
    func deleteUser(uid: String, in pool: Pool, now: Timestamp) throws -> Bool
    /// Applies `changes` to the user `uid` of `pool`; disabling ends the user's sessions.
    func updateUser(uid: String, in pool: Pool, changes: UserChanges, now: Timestamp) throws -> UpdateUserOutcome
    /// Adds a user of `pool` with `changes` applied (not signed in yet); refuses a uid or number in use.
    func createUser(uid: String, in pool: Pool, changes: UserChanges, now: Timestamp) throws -> UpdateUserOutcome
    /// Adds or replaces an exported user with its phone factors, and its passkeys when
    /// `replacingPasskeys` (its export listed them; otherwise those it has are kept) (SQLStore+Import).
    func importUser(_ user: UserRecord, replacingPasskeys: Bool) throws -> UpdateUserOutcome
    /// Up to `limit` users of `pool` in uid order, starting after `afterUid`.
    func listUsers(in pool: Pool, afterUid: String?, limit: Int) throws -> [UserRecord]
    /// Up to `limit` users of `pool` that `search` finds, in uid order, starting after `afterUid`.
    func searchUsers(_ search: UserSearch, in pool: Pool, afterUid: String?, limit: Int) throws -> [UserRecord]
}
