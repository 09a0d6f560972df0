import PhoneAuthCore

/// A verification ID and the code the user typed: what signs in, links a number, or completes a
/// second factor. Made by `credential(verificationID:verificationCode:)`.
///
/// The code is a secret: a credential's description never shows it.
public struct PhoneCredential: Sendable, CustomStringConvertible {
    let core: PhoneAuthCore.PhoneCredential

    /// The verification the code answers.
    public var verificationID: String { core.verificationId }

    /// A temporary proof from a ``PhoneAuthError/Code/credentialAlreadyInUse`` error, as a
    /// credential that signs in to the account that has the number, once, within five minutes.
    /// Nil if the text is not one.
    public init?(temporaryProof: String) {
        guard let core = PhoneAuthCore.PhoneCredential.temporaryProof(temporaryProof) else { return nil }
        self.core = core
    }

    init(core: PhoneAuthCore.PhoneCredential) { self.core = core }

    /// The verification ID only: the code is a secret.
    public var description: String { "PhoneCredential(verificationID: \(core.verificationId))" }
}
