/// What a successful sign-in or refresh returns.
public struct SignInResult: Sendable {
    public let user: UserRecord
    public let idToken: String
    public let refreshToken: String
    public let expiresIn: Int64
    public let isNewUser: Bool
    /// How the session began: "phone" or "custom".
    public var providerId = "phone"
}

/// What verifyPhoneNumber returns.
public struct VerificationStarted: Sendable {
    public let verificationId: String
    public let codeLength: Int
    public let expiresAt: Timestamp
    public let resendAt: Timestamp
}

/// A phone credential: a verification ID and the code the user typed.
public struct PhoneCredential: Sendable {
    public let verificationId: String
    public let verificationCode: String
}
