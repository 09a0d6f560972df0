import PhoneAuthCore

/// A key that signs or verifies ID tokens, as `signingKeys()` lists it.
public struct SigningKeyInfo: Sendable {
    /// The key's ID, the `kid` of the tokens it signs.
    public let kid: String
    /// `ES256`, `RS256` or `EdDSA`.
    public let algorithm: String
    /// When it was made (RFC 3339).
    public let createdAt: String
    /// Whole days since then.
    public let ageDays: Int
    /// Whether it signs new tokens (the others only verify).
    public let active: Bool
    /// When it stops verifying (RFC 3339), once it is no longer active.
    public let retiresAt: String?

    /// The key as the JSON text of an object, as `listSigningKeys` writes it.
    public var json: String { JSONCodec.serialize(ResultJSON.signingKey(state)) }

    private let state: KeyService.SigningKeyState

    init(_ key: KeyService.SigningKeyState) {
        state = key
        kid = key.kid
        algorithm = key.algorithm
        createdAt = key.createdAt.rfc3339
        ageDays = Int(key.ageDays)
        active = key.active
        retiresAt = key.retiresAt?.rfc3339
    }
}
