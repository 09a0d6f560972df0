import Crypto
import FoundationEssentials

/// The engine's secrets: the key that hashes SMS codes, the ID-token signing keys and the key
/// that seals queued SMS bodies. Kept in the store sealed (AES-GCM) under the master key.
public final class KeyRing: @unchecked Sendable {
    public let codeKey: SymmetricKey
    public let outboxKey: SymmetricKey
    public let totpKey: SymmetricKey
    let refreshKey: SymmetricKey
    /// The key that signs new tokens.
    public let activeSigningKey: SigningKey
    /// Every signing key in the store, by kid, so tokens signed before an algorithm change verify.
    public let signingKeys: [String: SigningKey]

    static let codeKeyKind = "code-hmac"

    public init(store: Store, masterKey: [UInt8], algorithm: EngineConfig.SigningAlgorithm, now: Timestamp) throws {
        let master = SymmetricKey(data: masterKey)
        outboxKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, info: Array("phoneauth outbox body v1".utf8), outputByteCount: 32)
        totpKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, info: Array("phoneauth totp secret v1".utf8), outputByteCount: 32)
        refreshKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, info: Array("phoneauth refresh secret v1".utf8), outputByteCount: 32)

        let stored = try store.secrets()
        // Generate a key only when the store has none of its kind; two processes racing settle on one.
        func ensure(_ kind: String, _ make: () throws -> StoredSecret) throws -> [StoredSecret] {
            let existing = stored.filter { $0.kind == kind }
            return existing.isEmpty ? try store.addSecretIfNoneOfKind(try make()) : existing
        }
        let codeSecrets = try ensure(Self.codeKeyKind) {
            try Self.seal(SecureBytes.random(count: 32), kid: "code-hmac-1", kind: Self.codeKeyKind, master: master, now: now)
        }
        guard let codeSecret = codeSecrets.first else { throw PhoneAuthError(.storageError, "The code key could not be stored.") }
        codeKey = SymmetricKey(data: try Self.open(codeSecret, master: master))

        let active = try ensure(algorithm.rawValue) {
            let (fresh, freshBytes) = try SigningKey.generate(algorithm)
            return try Self.seal(freshBytes, kid: fresh.kid, kind: algorithm.rawValue, master: master, now: now)
        }
        var keys: [String: SigningKey] = [:]
        for secret in try store.secrets() {
            guard let kind = EngineConfig.SigningAlgorithm(rawValue: secret.kind) else { continue }
            keys[secret.kid] = try SigningKey.load(kind, privateBytes: try Self.open(secret, master: master))
        }
        guard let newest = active.last, let signer = keys[newest.kid] else {
            throw PhoneAuthError(.storageError, "The signing key could not be stored.")
        }
        activeSigningKey = signer
        signingKeys = keys
    }

    private static func seal(_ secret: [UInt8], kid: String, kind: String, master: SymmetricKey, now: Timestamp) throws -> StoredSecret {
        let box = try AES.GCM.seal(secret, using: master, authenticating: Array((kind + "/" + kid).utf8))
        guard let combined = box.combined else { throw PhoneAuthError(.internalError, "Sealing a key failed.") }
        return StoredSecret(kid: kid, kind: kind, sealed: Array(combined), createdAt: now)
    }

    private static func open(_ secret: StoredSecret, master: SymmetricKey) throws -> [UInt8] {
        do {
            let box = try AES.GCM.SealedBox(combined: secret.sealed)
            return Array(try AES.GCM.open(box, using: master, authenticating: Array((secret.kind + "/" + secret.kid).utf8)))
        } catch {
            throw PhoneAuthError(.invalidConfiguration,
                                 "The master key does not match this database: its keys cannot be decrypted. Use the master key the database was created with.",
                                 details: [("key", .string("masterKey"))])
        }
    }

    /// HMAC of a code, bound to its verification so a hash cannot be replayed onto another one.
    public func codeHash(verificationId: String, code: String) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array((verificationId + ":" + code).utf8), using: codeKey))
    }

    public func sealBody(_ body: String, verificationId: String) throws -> [UInt8] {
        try Self.seal(Array(body.utf8), key: outboxKey, context: verificationId)
    }

    public func openBody(_ sealed: [UInt8], verificationId: String) -> String? {
        Self.open(sealed, key: outboxKey, context: verificationId).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A TOTP secret sealed for the store, bound to its user.
    public func sealTotpSecret(_ secret: [UInt8], uid: String) throws -> [UInt8] { try Self.seal(secret, key: totpKey, context: uid) }

    public func openTotpSecret(_ sealed: [UInt8], uid: String) -> [UInt8]? { Self.open(sealed, key: totpKey, context: uid) }

    /// A refresh token's secret, sealed for its session and generation (kept only so that a
    /// retried refresh can be given the same token).
    func sealRefreshSecret(_ token: RefreshToken) throws -> [UInt8] {
        try Self.seal(Array(token.secret.utf8), key: refreshKey, context: "\(token.sessionId)/\(token.generation)")
    }

    func openRefreshSecret(_ sealed: [UInt8], sessionId: String, generation: Int64) -> String? {
        Self.open(sealed, key: refreshKey, context: "\(sessionId)/\(generation)").map { String(decoding: $0, as: UTF8.self) }
    }

    private static func seal(_ plain: [UInt8], key: SymmetricKey, context: String) throws -> [UInt8] {
        let box = try AES.GCM.seal(plain, using: key, authenticating: Array(context.utf8))
        guard let combined = box.combined else { throw PhoneAuthError(.internalError, "Sealing failed.") }
        return Array(combined)
    }

    private static func open(_ sealed: [UInt8], key: SymmetricKey, context: String) -> [UInt8]? {
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
              let plain = try? AES.GCM.open(box, using: key, authenticating: Array(context.utf8)) else { return nil }
        return Array(plain)
    }
}
