import Crypto
import _CryptoExtras
@testable import PhoneAuthCore

/// A WebAuthn authenticator in software, as a browser's virtual one: it makes a P-256 (ES256) or
/// Ed25519 (EdDSA) credential and answers registrations ("none" or packed self attestation) and
/// assertions with the bytes a browser hands to a page. Its parts can be spoiled on purpose.
final class SoftwareAuthenticator {
    enum Key {
        case p256(P256.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)

        var algorithm: Int64 {
            switch self {
            case .p256: -7
            case .ed25519: -8
            case .rsa: -257
            }
        }

        /// The COSE key (RFC 9053) as CBOR.
        var cose: [UInt8] {
            switch self {
            case let .p256(key):
                let raw = Array(key.publicKey.rawRepresentation)  // x || y
                return CBOR.map([
                    (CBOR.int(1), CBOR.int(2)), (CBOR.int(3), CBOR.int(-7)), (CBOR.int(-1), CBOR.int(1)),
                    (CBOR.int(-2), CBOR.bytes(Array(raw[0..<32]))), (CBOR.int(-3), CBOR.bytes(Array(raw[32..<64]))),
                ])
            case let .ed25519(key):
                return CBOR.map([
                    (CBOR.int(1), CBOR.int(1)), (CBOR.int(3), CBOR.int(-8)), (CBOR.int(-1), CBOR.int(6)),
                    (CBOR.int(-2), CBOR.bytes(Array(key.publicKey.rawRepresentation))),
                ])
            case let .rsa(key):
                let primitives = try! key.publicKey.getKeyPrimitives()
                return CBOR.map([
                    (CBOR.int(1), CBOR.int(3)), (CBOR.int(3), CBOR.int(-257)),
                    (CBOR.int(-1), CBOR.bytes(Array(primitives.modulus))),
                    (CBOR.int(-2), CBOR.bytes(Array(primitives.publicExponent))),
                ])
            }
        }

        func sign(_ message: [UInt8]) -> [UInt8] {
            switch self {
            case let .p256(key): Array(try! key.signature(for: message).derRepresentation)
            case let .ed25519(key): Array(try! key.signature(for: message))
            case let .rsa(key): Array(try! key.signature(for: message, padding: .insecurePKCS1v1_5).rawRepresentation)
            }
        }
    }

    let key: Key
    let credentialId: [UInt8]
    var rpId: String
    var origin: String
    var signCount: UInt32 = 0
    var flags: UInt8 = 0x01 | 0x04  // present and verified
    /// Extension outputs to add to a registration's authenticator data (a CBOR map), if any.
    var extensions: [UInt8]?
    /// Whether the counter goes up with each assertion (synced passkeys keep it at 0).
    var counts = true

    init(
        key: Key = .p256(P256.Signing.PrivateKey()), rpId: String = "login.example.com",
        origin: String = "https://login.example.com"
    ) {
        self.key = key
        credentialId = (0..<16).map { _ in UInt8.random(in: 0...255) }
        self.rpId = rpId
        self.origin = origin
    }

    func clientData(_ type: String, challenge: [UInt8], origin: String? = nil) -> [UInt8] {
        Array(
            JSONCodec.serialize(
                .object([
                    ("type", .string(type)), ("challenge", .string(Base64URL.encode(challenge))),
                    ("origin", .string(origin ?? self.origin)), ("crossOrigin", .bool(false)),
                ])
            ).utf8)
    }

    private func authenticatorData(credential: Bool) -> [UInt8] {
        var data = Array(SHA256.hash(data: Array(rpId.utf8)))
        let extending = credential && extensions != nil
        data.append(flags | (credential ? 0x40 : 0) | (extending ? 0x80 : 0))
        data += withUnsafeBytes(of: signCount.bigEndian, Array.init)
        if credential {
            data += [UInt8](repeating: 0xAA, count: 16)  // the AAGUID
            data += [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xff)] + credentialId + key.cose
        }
        if extending, let extensions { data += extensions }
        return data
    }

    /// navigator.credentials.create's response: the attestation object and the client data.
    func register(challenge: [UInt8], format: String = "none") -> (attestationObject: [UInt8], clientData: [UInt8]) {
        let clientData = clientData("webauthn.create", challenge: challenge)
        let authData = authenticatorData(credential: true)
        var statement = CBOR.map([])
        if format == "packed" {
            let signature = key.sign(authData + Array(SHA256.hash(data: clientData)))
            statement = CBOR.map([
                (CBOR.text("alg"), CBOR.int(key.algorithm)), (CBOR.text("sig"), CBOR.bytes(signature)),
            ])
        }
        let object = CBOR.map([
            (CBOR.text("fmt"), CBOR.text(format)), (CBOR.text("attStmt"), statement),
            (CBOR.text("authData"), CBOR.bytes(authData)),
        ])
        return (object, clientData)
    }

    /// navigator.credentials.get's response, the counter one more.
    func assert(
        challenge: [UInt8], origin: String? = nil
    ) -> (
        authenticatorData: [UInt8], clientData: [UInt8], signature: [UInt8]
    ) {
        if counts { signCount += 1 }
        let clientData = clientData("webauthn.get", challenge: challenge, origin: origin)
        let data = authenticatorData(credential: false)
        return (data, clientData, key.sign(data + Array(SHA256.hash(data: clientData))))
    }
}

/// Enough CBOR writing for the authenticator above (definite lengths, as CTAP2 writes).
enum CBOR {
    static func head(_ major: UInt8, _ n: UInt64) -> [UInt8] {
        switch n {
        case 0..<24: [major << 5 | UInt8(n)]
        case 24..<256: [major << 5 | 24, UInt8(n)]
        case 256..<65536: [major << 5 | 25, UInt8(n >> 8), UInt8(n & 0xff)]
        default: [major << 5 | 26] + withUnsafeBytes(of: UInt32(n).bigEndian, Array.init)
        }
    }

    static func int(_ v: Int64) -> [UInt8] { v >= 0 ? head(0, UInt64(v)) : head(1, UInt64(-1 - v)) }
    static func bytes(_ b: [UInt8]) -> [UInt8] { head(2, UInt64(b.count)) + b }
    static func text(_ s: String) -> [UInt8] { head(3, UInt64(s.utf8.count)) + Array(s.utf8) }
    static func map(_ pairs: [([UInt8], [UInt8])]) -> [UInt8] {
        pairs.reduce(head(5, UInt64(pairs.count))) { $0 + $1.0 + $1.1 }
    }
}
