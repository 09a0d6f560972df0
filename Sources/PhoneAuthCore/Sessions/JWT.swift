/// Compact JWS encoding of JSON Web Tokens (RFC 7515 / 7519).
package enum JWT {
    package struct Decoded {
        package let header: JSONValue
        package let claims: JSONValue
        package let signingInput: [UInt8]
        package let signature: [UInt8]
    }

    package static func sign(claims: JSONValue, with key: SigningKey) throws -> String {
        let input = key.encodedJWTHeader + "." + Base64URL.encode(JSONCodec.serialize(claims).utf8)
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
    }

    /// Why a token's signature was not accepted, for the caller's error details.
    package enum Rejection: String, Error, CaseIterable {
        case malformed, unknownKey, algorithmMismatch, badSignature
    }

    /// Decodes a token and checks its signature against `keys` (by `kid`, with the key's own
    /// algorithm only, so a token cannot choose a weaker one).
    package static func verified(_ token: String, key lookup: (String) -> SigningKey?) throws(Rejection) -> Decoded {
        guard let jwt = decode(token) else { throw .malformed }
        guard let kid = jwt.header["kid"]?.stringValue, let key = lookup(kid) else { throw .unknownKey }
        guard jwt.header["alg"]?.stringValue == key.algorithm.rawValue else { throw .algorithmMismatch }
        guard key.isValidSignature(jwt.signature, for: jwt.signingInput) else { throw .badSignature }
        return jwt
    }

    /// Splits and decodes a token without checking its signature; nil when it is not a JWT.
    package static func decode(_ token: String) -> Decoded? {
        guard token.utf8.count <= 16_384 else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            let header = try? JSONCodec.parse(String(decoding: headerBytes, as: UTF8.self)),
            let claims = try? JSONCodec.parse(String(decoding: claimBytes, as: UTF8.self)),
            case .object = header, case .object = claims
        else { return nil }
        let input = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        return Decoded(header: header, claims: claims, signingInput: input, signature: signature)
    }
}
