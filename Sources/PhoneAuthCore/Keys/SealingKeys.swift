import Crypto

/// The master key and the keys derived from it that seal what the store keeps secret: the
/// stored keys themselves (AES-GCM under the master key, bound to kind/kid), queued SMS bodies
/// (bound to their verification), TOTP secrets (bound to their user) and refresh secrets kept for
/// retries (bound to session and generation). Rekeying replaces all of them at once.
struct SealingKeys: Sendable {
    let master: SymmetricKey
    let outbox: SymmetricKey
    let totp: SymmetricKey
    let refresh: SymmetricKey

    init(master bytes: [UInt8]) {
        let master = SymmetricKey(data: bytes)
        self.master = master
        outbox = Self.derive(master, "phoneauth outbox body v1")
        totp = Self.derive(master, "phoneauth totp secret v1")
        refresh = Self.derive(master, "phoneauth refresh secret v1")
    }

    private static func derive(_ master: SymmetricKey, _ info: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: master, info: Array(info.utf8), outputByteCount: 32)
    }

    /// The key and context that seal a column's values (SealedColumn says which row values bind them).
    func key(for column: SealedColumn) -> SymmetricKey {
        switch column {
        case .outboxBody: return outbox
        case .factorSecret, .mfaSessionSecret: return totp
        case .sessionSecret: return refresh
        }
    }

    func sealSecret(_ secret: [UInt8], kind: String, kid: String) throws -> [UInt8] {
        try Self.seal(secret, key: master, context: kind + "/" + kid)
    }

    func openSecret(_ sealed: [UInt8], kind: String, kid: String) -> [UInt8]? {
        Self.open(sealed, key: master, context: kind + "/" + kid)
    }

    static func seal(_ plain: [UInt8], key: SymmetricKey, context: String) throws -> [UInt8] {
        let box = try AES.GCM.seal(plain, using: key, authenticating: Array(context.utf8))
        guard let combined = box.combined else { throw PhoneAuthError(.internalError, "Sealing failed.") }
        return Array(combined)
    }

    static func open(_ sealed: [UInt8], key: SymmetricKey, context: String) -> [UInt8]? {
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let plain = try? AES.GCM.open(box, using: key, authenticating: Array(context.utf8))
        else { return nil }
        return Array(plain)
    }
}

/// The store's columns sealed under a key derived from the master key, and what binds each value.
package enum SealedColumn: CaseIterable, Sendable {
    /// verifications.sealed_body, bound to the verification's id.
    case outboxBody
    /// factors.sealed_secret and mfa_sessions.sealed_secret (TOTP secrets), bound to the user's uid.
    case factorSecret, mfaSessionSecret
    /// sessions.sealed_secret, bound to "<session id>/<generation>".
    case sessionSecret
}
