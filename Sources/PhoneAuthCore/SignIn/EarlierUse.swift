/// What a used code already did, kept so that the same code presented again soon after to the
/// same call (a retry whose first answer was lost) gets that result again rather than
/// `alreadyUsed`.
package struct EarlierUse: Sendable {
    /// The calls that spend a code and keep what it opened. A retry is the same call again: a
    /// code one of them spent is only used for any other (a number change's code signs no one in).
    package enum Call: String, Sendable, CaseIterable {
        case signIn, link, updatePhoneNumber, reauthenticate, enrollPhone, enrollTotp, secondFactor
    }

    package var call: Call
    package var uid: String
    /// The session it opened, or the second-factor challenge it opened instead.
    package var opened: String
    package var isNewUser: Bool = false
}
