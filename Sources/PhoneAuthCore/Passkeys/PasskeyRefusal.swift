/// Why a passkey registration or assertion is refused. What the client sent is never echoed:
/// the reason alone says what to fix.
enum PasskeyRefusal: String, Error, CaseIterable {
    /// The response is not what a browser's WebAuthn call returns (CBOR, JSON or lengths).
    case malformed
    /// The client data's type is not the ceremony's (`webauthn.create`, `webauthn.get`).
    case wrongType
    /// The challenge is not one this engine gave, or it was used or has expired.
    case wrongChallenge
    /// The page's origin is not one the configuration allows.
    case wrongOrigin
    /// The authenticator's relying party ID hash is not the configured ID's.
    case wrongRelyingParty
    /// The user was not present (no touch), or not verified where that is required.
    case userNotPresent, userNotVerified
    /// The key's algorithm, or the attestation's format, is not one accepted here.
    case unsupportedAlgorithm, unsupportedAttestation
    /// The host trusts given attestation roots, and the registration's attestation does not lead
    /// to one (none, self attestation, or a chain that does not verify).
    case untrustedAttestation
    /// The attestation or assertion signature does not verify.
    case badSignature
    /// The signature counter did not go up: the authenticator may have been cloned.
    case counterWentBack
    /// The credential is registered already (to this user or another).
    case alreadyRegistered
    /// No passkey of that ID in this pool (another user's, another tenant's or a removed one is
    /// refused as an unknown one).
    case unknownCredential
}

extension PasskeyRefusal {
    /// The refusal as the caller sees it: invalidCredential with the reason.
    var error: PhoneAuthError {
        PhoneAuthError(
            .invalidCredential, "The passkey was refused (\(rawValue)).", details: [("reason", .string(rawValue))])
    }
}
