import PhoneAuthCore

/// A signed-in session: the user and the tokens to hand to the client.
public struct SignInResult: Sendable {
    /// The account, as it is after this sign-in.
    public let user: User
    /// A signed JWT naming the user (its `sub`), valid for ``expiresIn`` seconds. Check one with
    /// `verifyIDToken(_:checkRevoked:)`.
    public let idToken: String
    /// The long-lived secret that gets new ID tokens (`refreshIDToken(_:)`); it
    /// rotates on each use.
    public let refreshToken: String
    /// The ID token's lifetime in seconds.
    public let expiresIn: Int
    /// Whether this sign-in created the account.
    public let isNewUser: Bool

    init(_ result: PhoneAuthCore.SignInResult) {
        user = User(result.user)
        idToken = result.idToken
        refreshToken = result.refreshToken
        expiresIn = Int(result.expiresIn)
        isNewUser = result.isNewUser
    }
}
