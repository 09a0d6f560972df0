import Crypto
import _CryptoExtras
import FoundationEssentials

/// A private key that signs ID tokens, with its public half as a JSON Web Key.
package struct SigningKey: Sendable {
    package let kid: String
    package let algorithm: EngineConfig.SigningAlgorithm
    private let backing: Backing
    /// The public key as a JWK (RFC 7517 / 7518 / 8037), computed once: the JWKS is asked often.
    package let publicJWK: JSONValue
    /// The base64url JWT header naming this key: the same for every token it signs.
    package let encodedJWTHeader: String

    private enum Backing {
        case es256(P256.Signing.PrivateKey)
        case rs256(_RSA.Signing.PrivateKey)
        case edDSA(Curve25519.Signing.PrivateKey)
    }

    /// A new key; `privateBytes` is what to keep (sealed) to load it again.
    package static func generate(
        _ algorithm: EngineConfig.SigningAlgorithm
    ) throws -> (SigningKey, privateBytes: [UInt8]) {
        let bytes: [UInt8]
        switch algorithm {
        case .es256: bytes = Array(P256.Signing.PrivateKey().rawRepresentation)
        case .rs256: bytes = Array(try _RSA.Signing.PrivateKey(keySize: .bits2048).derRepresentation)
        case .edDSA: bytes = Array(Curve25519.Signing.PrivateKey().rawRepresentation)
        }
        return (try load(algorithm, privateBytes: bytes), bytes)
    }

    package static func load(_ algorithm: EngineConfig.SigningAlgorithm, privateBytes: [UInt8]) throws -> SigningKey {
        let backing: Backing
        let publicBytes: [UInt8]
        switch algorithm {
        case .es256:
            let key = try P256.Signing.PrivateKey(rawRepresentation: privateBytes)
            backing = .es256(key)
            publicBytes = Array(key.publicKey.x963Representation)
        case .rs256:
            let key = try _RSA.Signing.PrivateKey(derRepresentation: privateBytes)
            backing = .rs256(key)
            publicBytes = Array(key.publicKey.derRepresentation)
        case .edDSA:
            let key = try Curve25519.Signing.PrivateKey(rawRepresentation: privateBytes)
            backing = .edDSA(key)
            publicBytes = Array(key.publicKey.rawRepresentation)
        }
        // The key ID is derived from the public key, so every process names a key the same way.
        let kid = Base64URL.encode(SHA256.hash(data: publicBytes).prefix(12))
        let header: JSONValue = .object([
            ("alg", .string(algorithm.rawValue)), ("kid", .string(kid)), ("typ", .string("JWT")),
        ])
        return SigningKey(
            kid: kid, algorithm: algorithm, backing: backing,
            publicJWK: jwk(kid: kid, algorithm: algorithm, backing: backing),
            encodedJWTHeader: Base64URL.encode(JSONCodec.serialize(header).utf8))
    }

    package func sign(_ data: [UInt8]) throws -> [UInt8] {
        switch backing {
        case let .es256(key): return Array(try key.signature(for: data).rawRepresentation)
        case let .rs256(key): return Array(try key.signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation)
        case let .edDSA(key): return Array(try key.signature(for: data))
        }
    }

    package func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        switch backing {
        case let .es256(key):
            guard let s = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.publicKey.isValidSignature(s, for: data)
        case let .rs256(key):
            return key.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5)
        case let .edDSA(key):
            return key.publicKey.isValidSignature(signature, for: data)
        }
    }

    private static func jwk(kid: String, algorithm: EngineConfig.SigningAlgorithm, backing: Backing) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("kid", .string(kid)), ("alg", .string(algorithm.rawValue)), ("use", .string("sig")),
        ]
        switch backing {
        case let .es256(key):
            let point = Array(key.publicKey.x963Representation)  // 0x04 || x || y
            fields += [
                ("kty", .string("EC")), ("crv", .string("P-256")),
                ("x", .string(Base64URL.encode(point[1..<33]))), ("y", .string(Base64URL.encode(point[33..<65]))),
            ]
        case let .rs256(key):
            if let primitives = try? key.publicKey.getKeyPrimitives() {
                fields += [
                    ("kty", .string("RSA")), ("n", .string(Base64URL.encode(Array(primitives.modulus)))),
                    ("e", .string(Base64URL.encode(Array(primitives.publicExponent)))),
                ]
            }
        case let .edDSA(key):
            fields += [
                ("kty", .string("OKP")), ("crv", .string("Ed25519")),
                ("x", .string(Base64URL.encode(Array(key.publicKey.rawRepresentation)))),
            ]
        }
        return .object(fields)
    }
}
