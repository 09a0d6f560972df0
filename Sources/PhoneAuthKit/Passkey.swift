#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PhoneAuthCore

/// A passkey a user registered (`finishPasskeyEnrollment(idToken:credential:name:)`): what the
/// operator and the user see of it. Its public key and signature counter stay in the engine.
public struct Passkey: Sendable, Hashable {
    /// The credential's ID in base64url, as the browser's `PublicKeyCredential.id` gives it; it
    /// names the passkey in `deletePasskey(idToken:credentialID:)`.
    public let credentialID: String
    /// The name given at enrolment (`Passkey` when none was).
    public let name: String
    /// The key's COSE algorithm: -7 (ES256), -8 (EdDSA) or -257 (RS256).
    public let algorithm: Int
    /// The attestation format the registration came with: `none` or `packed`.
    public let attestationFormat: String
    /// Whether the authenticator may sync the passkey to the user's other devices.
    public let backupEligible: Bool
    /// When it was registered.
    public let createdAt: Date
    /// When it last signed the user in, if ever.
    public let lastUsedAt: Date?

    init(_ passkey: PhoneAuthCore.Passkey) {
        credentialID = passkey.id
        name = passkey.name
        algorithm = Int(passkey.algorithm)
        attestationFormat = passkey.format
        backupEligible = passkey.backupEligible
        createdAt = Date(passkey.createdAt)
        lastUsedAt = passkey.lastUsedAt.map(Date.init)
    }
}
