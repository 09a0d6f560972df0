/// Custom tokens: JWTs the engine signs for a host that authenticates its users itself, which
/// then sign in with them (Firebase's createCustomToken / signInWithCustomToken). Their audience
/// differs from ID tokens', so neither kind is accepted as the other.
package struct CustomTokens: Sendable {
    let keys: KeyRing
    let issuer: String
    let projectId: String

    static let lifetimeSeconds: Int64 = 3600

    var audience: String { "custom-token:" + projectId }

    /// A verified custom token: whom it signs in, with which developer claims (JSON text).
    package struct Grant: Sendable {
        package let uid: String
        package let claims: String?
        /// The pool it signs in to (its `tenant_id` claim, as Firebase's admin SDKs write it).
        package let tenant: TenantID
    }

    package func create(uid: String, claims: JSONValue?, in pool: Pool, now: Timestamp) throws -> String {
        guard !uid.isEmpty, uid.utf8.count <= 128 else {
            throw PhoneAuthError(
                .invalidArgument, "The field 'uid' must be 1 to 128 bytes.", details: [("field", .string("uid"))])
        }
        var payload: [(String, JSONValue)] = [
            ("iss", .string(issuer)), ("sub", .string(uid)), ("aud", .string(audience)),
            ("iat", .int(now.seconds)), ("exp", .int(now.seconds + Self.lifetimeSeconds)), ("uid", .string(uid)),
        ]
        if let claims, try DeveloperClaims.validated(claims) != nil { payload.append(("claims", claims)) }
        if let named = pool.tenant.named { payload.append(("tenant_id", .string(named))) }
        return try JWT.sign(claims: .object(payload), with: keys.activeSigningKey)
    }

    package func verify(_ token: String, now: Timestamp) throws(PhoneAuthError) -> Grant {
        func invalid(_ reason: String, _ message: String) -> PhoneAuthError {
            PhoneAuthError(.invalidCustomToken, message, details: [("reason", .string(reason))])
        }
        let jwt: JWT.Decoded
        do { jwt = try JWT.verified(token, key: keys.verificationKey) } catch {
            throw invalid(error.rawValue, "The custom token is not valid (\(error.rawValue)).")
        }
        guard jwt.claims["iss"]?.stringValue == issuer, jwt.claims["aud"]?.stringValue == audience else {
            throw PhoneAuthError(.customTokenMismatch, "The token is not a custom token of this project.")
        }
        guard let uid = jwt.claims["uid"]?.stringValue, !uid.isEmpty, jwt.claims["sub"]?.stringValue == uid,
            let exp = jwt.claims["exp"]?.intValue, let iat = jwt.claims["iat"]?.intValue
        else {
            throw invalid("missingClaim", "The custom token lacks a required claim.")
        }
        guard now.seconds < exp, exp - iat <= Self.lifetimeSeconds else {
            throw invalid("expired", "The custom token has expired.")
        }
        let tenant: TenantID
        do { tenant = try TenantID(jwt.claims["tenant_id"]?.stringValue, field: "tenant_id") } catch {
            throw invalid("invalidTenantId", "The custom token's tenant_id is not a tenant ID.")
        }
        return Grant(uid: uid, claims: jwt.claims["claims"].map(JSONCodec.serialize), tenant: tenant)
    }
}
