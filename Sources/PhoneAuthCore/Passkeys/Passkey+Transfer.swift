/// A passkey in exportUsers' and importUsers' `passkeyInfo`: all a later sign-in checks (the
/// public key and the counter, neither of them secret), so that users move between PhoneAuth
/// stores with their passkeys. Firebase's own export has no such field.
extension Passkey {
    package var exportJSON: JSONValue {
        .object(
            fields + [
                ("publicKey", .string(Base64URL.encode(publicKey))), ("signCount", .int(Int64(signCount))),
                ("aaguid", .string(Base64URL.encode(aaguid))),
            ])
    }

    /// `exportJSON` read back for the user `uid` of `tenant`, checked field by field.
    static func imported(
        _ item: JSONValue, path: String, uid: String, tenant: TenantID, now: Timestamp
    ) throws -> Passkey {
        let r = try ObjectReader(item, path: path)
        try r.rejectUnknown([
            "credentialId", "name", "algorithm", "format", "backupEligible", "createdAt", "lastUsedAt", "publicKey",
            "signCount", "aaguid",
        ])
        func bytes(_ key: String, count: ClosedRange<Int>) throws -> [UInt8] {
            guard let text = try r.string(key), let bytes = Base64URL.decode(text), count.contains(bytes.count) else {
                throw r.refusal(key, "must be base64url of \(count.lowerBound) to \(count.upperBound) bytes")
            }
            return bytes
        }
        let id = try bytes("credentialId", count: 1...1023)
        guard let algorithm = try r.int("algorithm", in: Int64.min...Int64.max),
            PasskeyVerifier.algorithms.contains(algorithm)
        else { throw r.refusal("algorithm", "must be a COSE algorithm accepted here (-7, -8, -257)") }
        let publicKey = try bytes("publicKey", count: 1...1024)
        guard PasskeyVerifier.isKey(publicKey, algorithm: algorithm) else {
            throw r.refusal("publicKey", "must be the key exportUsers wrote for its algorithm")
        }
        guard let format = try r.string("format"), PasskeyVerifier.formats.contains(format) else {
            throw r.refusal("format", "must be the attestation format: none or packed")
        }
        return Passkey(
            id: Base64URL.encode(id), tenant: tenant, uid: uid, publicKey: publicKey,
            algorithm: algorithm,
            signCount: UInt32(try r.int("signCount", in: 0...Int64(UInt32.max)) ?? 0),
            aaguid: r.value("aaguid") == nil ? [UInt8](repeating: 0, count: 16) : try bytes("aaguid", count: 16...16),
            format: format, backupEligible: try r.bool("backupEligible") ?? false,
            name: try Label(try r.string("name") ?? "Passkey", field: path + ".name").text,
            createdAt: try AccountTransfer.time(r, "createdAt") ?? now,
            lastUsedAt: try AccountTransfer.time(r, "lastUsedAt"))
    }
}
