/// What an account operation refused, when the code (if any) was right.
package enum AccountRefusal: Sendable {
    case sessionEnded, userNotFound, userDisabled, providerAlreadyLinked, noSuchProvider, userMismatch,
        unsupportedFirstFactor, secondFactorAlreadyEnrolled, maximumSecondFactorCountExceeded,
        invalidMultiFactorSession, multiFactorInfoNotFound, uidInAnotherTenant, passkeyNotFound
    /// Another user has `phone`, the number the code proved.
    case credentialAlreadyInUse(phone: String)
}
