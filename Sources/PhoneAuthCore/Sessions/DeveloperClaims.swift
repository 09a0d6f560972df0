/// Claims a host adds to ID tokens: through a custom token, or per user with setCustomUserClaims.
/// They must be a JSON object of at most 1000 bytes whose names the token does not set itself.
enum DeveloperClaims {
    static let maxBytes = 1000
    /// Claims the ID token sets itself, or that JWT and OpenID Connect give a meaning.
    static let reserved: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "firebase", "iat",
        "iss", "jti", "nbf", "nonce", "sid", "sub", "user_id", "phone_number",
    ]

    /// The claims as JSON text, nil for none (an empty object too).
    static func validated(_ claims: JSONValue, field: String = "claims") throws(PhoneAuthError) -> String? {
        guard case let .object(pairs) = claims else {
            throw PhoneAuthError(
                .invalidArgument, "The field '\(field)' must be a JSON object.", details: [("field", .string(field))])
        }
        if let name = pairs.first(where: { reserved.contains($0.0) })?.0 {
            throw PhoneAuthError(
                .invalidArgument, "The claim '\(name)' is reserved.", details: [("field", .string("\(field).\(name)"))])
        }
        let text = JSONCodec.serialize(claims)
        guard text.utf8.count <= maxBytes else {
            throw PhoneAuthError(
                .invalidArgument, "The field '\(field)' must serialize to at most \(maxBytes) bytes.",
                details: [("field", .string(field))])
        }
        return pairs.isEmpty ? nil : text
    }
}
