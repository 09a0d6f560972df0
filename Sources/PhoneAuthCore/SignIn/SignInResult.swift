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

/// A phone credential: a verification ID and the code the user typed, or a temporary proof
/// (from credentialAlreadyInUse), which is a verification whose code is a secret.
public struct PhoneCredential: Sendable {
    public let verificationId: String
    public let verificationCode: String
    public var isTemporaryProof = false
    /// The address of the client that sent the code (for the per-IP wrong-code limit), if known.
    public var clientIp: String? = nil

    /// Splits a temporary proof, "<verification ID>.<secret>"; nil if it has not that shape.
    public static func temporaryProof(_ proof: String) -> PhoneCredential? {
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, VerificationCode.isWellFormedId(String(parts[0])), parts[1].utf8.count == 43 else { return nil }
        return PhoneCredential(verificationId: String(parts[0]), verificationCode: String(parts[1]), isTemporaryProof: true)
    }
}
