/// Issues and checks ID tokens: JWTs whose claims follow Firebase's, so code written for Firebase
/// ID tokens reads them.
package struct IDTokens: Sendable {
    let keys: KeyRing
    let issuer: String
    let audience: String
    let lifetimeSeconds: Int64

    /// An ID token of `session`: how it began (provider, second factor, auth_time) and, as
    /// Firebase does, the custom token's developer claims and the user's custom claims at the
    /// top level. `sid` names the session, so account changes can check it is still live.
    package func issue(for session: SessionInfo, now: Timestamp) throws -> String {
        let user = session.user
        // The session's developer claims, then the user's own, then a beforeSignIn hook's session
        // claims (each wins over the ones before on a clash), then ours.
        var merged: [String: JSONValue] = [:]
        var order: [String] = []
        for text in [session.developerClaims, user.customClaims, session.sessionClaims] {
            guard let text, case let .object(pairs)? = try? JSONCodec.parse(text) else { continue }
            for (name, value) in pairs {
                if merged[name] == nil { order.append(name) }
                merged[name] = value
            }
        }
        var claims: [(String, JSONValue)] = order.compactMap { name in merged[name].map { (name, $0) } }
        claims += [
            ("iss", .string(issuer)),
            ("aud", .string(audience)),
            ("auth_time", .int(session.authTime.seconds)),
            ("user_id", .string(user.uid)),
            ("sub", .string(user.uid)),
            ("sid", .string(session.sessionId)),
            ("iat", .int(now.seconds)),
            ("exp", .int(now.seconds + lifetimeSeconds)),
        ]
        var identities: [(String, JSONValue)] = []
        if let phone = user.phoneNumber {
            claims.append(("phone_number", .string(phone)))
            identities.append(("phone", .array([.string(phone)])))
        }
        var firebase = JSONObjectBuilder()
        firebase.set("identities", .object(identities))
        firebase.set("sign_in_provider", .string(session.provider.rawValue))
        firebase.set("sign_in_second_factor", session.secondFactor.map { .string($0.rawValue) })
        firebase.set("second_factor_identifier", session.secondFactorEnrollment.map { .string($0) })
        firebase.set("tenant", user.tenant.named.map { .string($0) })
        claims.append(("firebase", firebase.value))
        return try JWT.sign(claims: .object(claims), with: keys.activeSigningKey)
    }

    /// Checks signature, algorithm, issuer, audience, expiry and, when the caller names a tenant,
    /// that the token is of that pool (`firebase.tenant`, absent for the default pool); returns
    /// the claims.
    package func verify(_ token: String, now: Timestamp, for caller: Caller) throws(PhoneAuthError) -> JSONValue {
        func invalid(_ reason: String, _ message: String) -> PhoneAuthError {
            PhoneAuthError(.invalidIdToken, message, details: [("reason", .string(reason))])
        }
        let jwt: JWT.Decoded
        do { jwt = try JWT.verified(token, key: keys.verificationKey) } catch {
            throw invalid(error.rawValue, Self.messages[error] ?? "The ID token is not valid.")
        }
        guard jwt.claims["iss"]?.stringValue == issuer else {
            throw invalid("wrongIssuer", "The ID token has another issuer.")
        }
        guard jwt.claims["aud"]?.stringValue == audience else {
            throw invalid("wrongAudience", "The ID token is for another project.")
        }
        guard let exp = jwt.claims["exp"]?.intValue, let sub = jwt.claims["sub"]?.stringValue, !sub.isEmpty,
            jwt.claims["iat"]?.intValue != nil, jwt.claims["auth_time"]?.intValue != nil
        else {
            throw invalid("missingClaim", "The ID token lacks a required claim.")
        }
        guard now.seconds < exp else {
            throw PhoneAuthError(
                .userTokenExpired, "The ID token has expired.",
                details: [("expiredAt", .string(Timestamp(seconds: exp).rfc3339))])
        }
        if !caller.tokenMayBeOf(Self.tenant(of: jwt.claims)) {

            throw invalid("wrongTenant", "The ID token is of another tenant.")
        }
        return jwt.claims
    }

    /// The pool an ID token's user is in.
    static func tenant(of claims: JSONValue) -> TenantID {
        TenantID(unchecked: claims["firebase"]?["tenant"]?.stringValue ?? "")
    }

    static let messages: [JWT.Rejection: String] = [
        .malformed: "The ID token is not a well-formed JWT.",
        .unknownKey: "The ID token was not signed by a key of this engine.",
        .algorithmMismatch: "The ID token's algorithm does not match its key.",
        .badSignature: "The ID token's signature is not valid.",
    ]
}
