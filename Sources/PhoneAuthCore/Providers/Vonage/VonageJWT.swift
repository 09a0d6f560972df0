import Crypto
import _CryptoExtras

/// The token Vonage's Voice API takes as `Authorization: Bearer`: a JWT signed RS256 with the
/// Vonage application's private key, claiming the application's ID, when it was made (iat), when
/// it ends (exp) and a unique ID (jti). A new one for each call, so none outlives its request.
struct VonageJWT: Sendable {
    /// Long enough for a slow request, short enough that a leaked token is soon worthless.
    static let lifetimeSeconds: Int64 = 300

    let applicationId: String
    private let key: _RSA.Signing.PrivateKey

    /// The application's key from its PEM (PKCS#8 "BEGIN PRIVATE KEY", as Vonage's dashboard
    /// gives it, or PKCS#1 "BEGIN RSA PRIVATE KEY"); nil if it is not an RSA key of 2048 bits or more.
    init?(applicationId: String, pem: String) {
        guard let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) else { return nil }
        self.applicationId = applicationId
        self.key = key
    }

    /// The header every token shares: {"alg":"RS256","typ":"JWT"}.
    private static let encodedHeader = Base64URL.encode(
        JSONCodec.serialize(.object([("alg", .string("RS256")), ("typ", .string("JWT"))])).utf8)

    /// A token issued at `now`; `jti` is random unless a test gives one. Nil only if signing fails.
    func token(now: Timestamp, jti: String? = nil) -> String? {
        let issued = now.milliseconds / 1000
        let claims: JSONValue = .object([
            ("application_id", .string(applicationId)), ("iat", .int(issued)),
            ("exp", .int(issued + Self.lifetimeSeconds)),
            ("jti", .string(jti ?? Base64URL.encode(SecureBytes.random(count: 16)))),
        ])
        let signingInput = Self.encodedHeader + "." + Base64URL.encode(JSONCodec.serialize(claims).utf8)
        guard
            let signature = try? key.signature(
                for: Array(signingInput.utf8), padding: _RSA.Signing.Padding.insecurePKCS1v1_5)
        else { return nil }
        return signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }
}
