/// What updateUser or createUser did.
package enum UpdateUserOutcome: Sendable {
    case updated(UserRecord)
    case notFound
    /// createUser: a user with that uid exists.
    case uidTaken
    case phoneNumberTaken
    /// The number is enrolled as an SMS second factor, so it cannot be a user's phone number.
    case phoneIsSecondFactor
}
