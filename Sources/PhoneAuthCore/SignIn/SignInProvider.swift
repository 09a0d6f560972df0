/// How a session began, as the `provider` columns and the `sign_in_provider` claim name it.
package enum SignInProvider: String, Sendable, CaseIterable {
    /// A code sent to the phone number (or a temporary proof of it).
    case phone
    /// A custom token the host made.
    case custom
    /// A passkey the user registered after signing in by phone.
    case passkey
}
