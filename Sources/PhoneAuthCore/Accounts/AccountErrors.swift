/// The errors of account operations the store refused.
enum AccountErrors {
    static let noUser = PhoneAuthError(.userNotFound, "There is no user with this identifier.")
    static let disabledUser = PhoneAuthError(.userDisabled, "The user account has been disabled.")

    static func error(_ refusal: AccountRefusal) -> PhoneAuthError {
        switch refusal {
        case .sessionEnded:
            return PhoneAuthError(
                .invalidUserToken, "The session of this ID token has ended (signed out or revoked); sign in again.",
                details: [("reason", .string("sessionEnded"))])
        case .userNotFound: return noUser
        case .uidInAnotherTenant:
            return PhoneAuthError(
                .uidAlreadyExists, "A user of another tenant has this uid (a uid is unique across tenants).",
                details: [("reason", .string("uidInAnotherTenant"))])
        case .userDisabled: return disabledUser
        case .providerAlreadyLinked:
            return PhoneAuthError(
                .providerAlreadyLinked, "The account already has a phone number; use updatePhoneNumber to change it.")
        case .noSuchProvider: return PhoneAuthError(.noSuchProvider, "The account has no credential of this provider.")
        case .userMismatch:
            return PhoneAuthError(
                .userMismatch, "The credential belongs to another user (or to none) than the signed-in one.")
        case .credentialAlreadyInUse:
            return PhoneAuthError(.credentialAlreadyInUse, "Another account already has this phone number.")
        case .unsupportedFirstFactor:
            return PhoneAuthError(
                .unsupportedFirstFactor,
                "A phone number is either a first factor (a user's sign-in number) or an SMS second factor, never both."
            )
        case .secondFactorAlreadyEnrolled:
            return PhoneAuthError(
                .secondFactorAlreadyEnrolled, "This phone number is already one of the user's second factors.")
        case .maximumSecondFactorCountExceeded:
            return PhoneAuthError(
                .maximumSecondFactorCountExceeded,
                "The user already has the maximum number of second factors (mfa.maxFactors).")
        case .invalidMultiFactorSession:
            return PhoneAuthError(
                .invalidMultiFactorSession,
                "The multi-factor session is unknown, expired or already used; sign in again.")
        case .multiFactorInfoNotFound:
            return PhoneAuthError(.multiFactorInfoNotFound, "The user has no second factor with this enrollment ID.")
        // Removed while the sign-in hooks ran: as unknown as a passkey never made.
        case .passkeyNotFound: return PasskeyRefusal.unknownCredential.error
        }
    }
}
