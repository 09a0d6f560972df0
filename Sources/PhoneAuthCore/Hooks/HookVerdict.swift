/// What beforeCreate and beforeSignIn decided for a sign-in they let through: the user's fields
/// their `updateMask` named (stored), and the session's claims (in its ID tokens only).
package struct HookVerdict: Sendable {
    package var changes = UserChanges()
    /// nil: not named (a continued session keeps its claims); `.some(nil)`: none.
    package var sessionClaims: String??

    /// `later`'s fields over these (beforeSignIn runs after beforeCreate).
    mutating func merge(_ later: HookVerdict) {
        if let value = later.changes.displayName { changes.displayName = value }
        if let value = later.changes.disabled { changes.disabled = value }
        if let value = later.changes.customClaims { changes.customClaims = value }
        if let value = later.sessionClaims { sessionClaims = value }
    }

    /// `user` as these changes leave it.
    func applied(to user: UserRecord) -> UserRecord {
        var user = user
        if let value = changes.displayName { user.displayName = value }
        if let value = changes.disabled { user.disabled = value }
        if let value = changes.customClaims { user.customClaims = value }
        return user
    }
}
