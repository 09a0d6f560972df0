/// What a used sign-in code already did, kept so that the same credential presented again soon
/// after (a retry whose first answer was lost) gets that result again rather than `alreadyUsed`.
package struct EarlierSignIn: Sendable {
    package var uid: String
    /// The session it opened, or the second-factor challenge it opened instead.
    package var opened: String
    package var isNewUser: Bool
}
