import PhoneAuthCore

/// A verification ID and the code the user typed: what signs in, links a number, or completes a
/// second factor. Made by `credential(verificationId:verificationCode:)`.
///
/// The code is a secret: a credential's description never shows it.
public struct PhoneCredential: Sendable, CustomStringConvertible {
    let core: PhoneAuthCore.PhoneCredential

    /// The verification the code answers.
    public var verificationId: String { core.verificationId }

    public var description: String { "PhoneCredential(verificationId: \(core.verificationId))" }
}
