/// What a successful sign-in or refresh returns.
package struct SignInResult: Sendable {
    package let user: UserRecord
    package let idToken: String
    package let refreshToken: String
    package let expiresIn: Int64
    package let isNewUser: Bool
    /// How the session began: "phone", "custom" or "passkey".
    package var providerId = "phone"
}
