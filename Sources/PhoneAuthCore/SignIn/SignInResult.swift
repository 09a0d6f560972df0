/// What a successful sign-in or refresh returns.
package struct SignInResult: Sendable {
    package let user: UserRecord
    package let idToken: String
    package let refreshToken: String
    package let expiresIn: Int64
    package let isNewUser: Bool
    /// How the session began: "phone" or "custom".
    package var providerId = "phone"
}

/// What verifyPhoneNumber returns.
package struct VerificationStarted: Sendable {
    package let verificationId: String
    package let codeLength: Int
    package let expiresAt: Timestamp
    package let resendAt: Timestamp
}

/// A phone credential: a verification ID and the code the user typed, or a temporary proof
/// (from credentialAlreadyInUse), which is a verification whose code is a secret.
package struct PhoneCredential: Sendable {
    package let verificationId: String
    package let verificationCode: String
    package var isTemporaryProof = false
    /// The address of the client that sent the code (for the per-IP wrong-code limit), if known.
    package var clientIp: ClientAddress? = nil

    /// Splits a temporary proof, "<verification ID>.<secret>"; nil if it has not that shape.
    package static func temporaryProof(_ proof: String) -> PhoneCredential? {
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, VerificationCode.isWellFormedId(String(parts[0])), parts[1].utf8.count == 43 else { return nil }
        return PhoneCredential(verificationId: String(parts[0]), verificationCode: String(parts[1]), isTemporaryProof: true)
    }
}
