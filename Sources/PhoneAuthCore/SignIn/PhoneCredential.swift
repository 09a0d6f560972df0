/// A phone credential: a verification ID and the code the user typed, or a temporary proof
/// (from credentialAlreadyInUse), which is a verification whose code is a secret.
package struct PhoneCredential: Sendable {
    package let verificationId: String
    package let verificationCode: String
    package var isTemporaryProof = false

    /// Splits a temporary proof, "<verification ID>.<secret>"; nil if it has not that shape.
    package static func temporaryProof(_ proof: String) -> PhoneCredential? {
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, VerificationCode.isWellFormedId(String(parts[0])), parts[1].utf8.count == 43 else {
            return nil
        }
        return PhoneCredential(
            verificationId: String(parts[0]), verificationCode: String(parts[1]), isTemporaryProof: true)
    }
}
