import Crypto

/// A refresh token: "<uid in base64url>.<session id>.<generation>.<secret>". The secret is 256
/// random bits of which only the SHA-256 is stored. Naming the session lets the store find it by
/// its primary key (no token index); the generation, raised on every rotation, makes any earlier
/// token of the session recognisable, so presenting one ends the session (it may be stolen).
package struct RefreshToken: Sendable {
    package let uid: String
    package let sessionId: String
    package let generation: Int64
    let secret: String

    static func newSessionId() -> String { Base64URL.encode(SecureBytes.random(count: 16)) }

    /// A token for `generation` of a session, with a fresh secret.
    static func issue(uid: String, sessionId: String, generation: Int64) -> RefreshToken {
        RefreshToken(
            uid: uid, sessionId: sessionId, generation: generation,
            secret: Base64URL.encode(SecureBytes.random(count: 32)))
    }

    package var text: String { "\(Base64URL.encode(uid.utf8)).\(sessionId).\(generation).\(secret)" }

    var secretHash: [UInt8] { Array(SHA256.hash(data: Array(secret.utf8))) }

    /// nil for anything that is not a well-formed token (then it is simply unknown).
    static func parse(_ text: String) -> RefreshToken? {
        guard text.utf8.count <= 512 else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, let uidBytes = Base64URL.decode(parts[0]), !uidBytes.isEmpty,
            parts[1].utf8.count == 22, Base64URL.decode(parts[1]) != nil,
            parts[2].utf8.count <= 18, let generation = Int64(parts[2]), generation >= 0,
            parts[3].utf8.count == 43, Base64URL.decode(parts[3]) != nil
        else { return nil }
        return RefreshToken(
            uid: String(decoding: uidBytes, as: UTF8.self), sessionId: String(parts[1]),
            generation: generation, secret: String(parts[3]))
    }
}
