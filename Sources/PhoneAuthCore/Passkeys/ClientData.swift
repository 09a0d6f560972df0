import Crypto

/// The client data a browser signs with a WebAuthn response (Web Authentication, section 5.8.1):
/// the ceremony's type, the challenge and the page's origin, checked against what the engine
/// expects; the authenticator signs its SHA-256.
package struct ClientData {
    let hash: [UInt8]

    package enum Ceremony: String, Sendable {
        case create = "webauthn.create", get = "webauthn.get"
    }

    /// Client data is a few hundred bytes; a megabyte is no browser's.
    static let maxLength = 4096

    /// The JSON `bytes`, checked: its type is `ceremony`'s, its challenge `challenge` and its
    /// origin one of `origins`. A cross-origin frame's response is refused as another origin.
    init(_ bytes: [UInt8], ceremony: Ceremony, challenge: [UInt8], origins: [String]) throws(PasskeyRefusal) {
        guard bytes.count <= Self.maxLength, let json = try? JSONCodec.parse(bytes: bytes) else {
            throw .malformed
        }
        guard json["type"]?.stringValue == ceremony.rawValue else { throw .wrongType }
        guard let given = json["challenge"]?.stringValue.flatMap(Base64URL.decode),
            SecureBytes.equal(given, challenge)
        else { throw .wrongChallenge }
        guard let origin = json["origin"]?.stringValue, origins.contains(origin),
            json["crossOrigin"] != .bool(true)
        else { throw .wrongOrigin }
        hash = Array(SHA256.hash(data: bytes))
    }
}
