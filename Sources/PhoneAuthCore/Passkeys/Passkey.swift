/// A user's passkey as the store keeps it: the credential's ID (base64url, as browsers name it),
/// its public key in libfido2's form and algorithm, the signature counter, and what the operator
/// sees of it.
package struct Passkey: Sendable, Hashable {
    package var id: String
    package var tenant: TenantID
    package var uid: String
    package var publicKey: [UInt8]
    package var algorithm: Int64
    package var signCount: UInt32
    /// The authenticator model's ID (all zeros when it does not say).
    package var aaguid: [UInt8]
    /// The attestation format the registration came with (none, packed).
    package var format: String
    /// Whether the passkey may be synced to the user's other devices.
    package var backupEligible: Bool
    package var name: String
    package var createdAt: Timestamp
    package var lastUsedAt: Timestamp?

    /// As the JSON methods and the user's `passkeyInfo` show it (no key, no counter).
    package var fields: [(String, JSONValue)] {
        [
            ("credentialId", .string(id)), ("name", .string(name)), ("algorithm", .int(algorithm)),
            ("format", .string(format)), ("backupEligible", .bool(backupEligible)),
            ("createdAt", .string(createdAt.rfc3339)), ("lastUsedAt", lastUsedAt.map { .string($0.rfc3339) } ?? .null),
        ]
    }
}
