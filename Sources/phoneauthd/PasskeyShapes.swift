import PhoneAuthCore

/// WebAuthn's JSON as the engine speaks it (the browser's, base64url) and as Identity Platform's
/// v2 schema writes it: options out in Google's names, credentials in from either form.
enum PasskeyShapes {
    enum Ceremony {
        case registration, assertion

        /// Google's name for the attestation or assertion inside its response object.
        var responseField: String {
            self == .registration ? "authenticatorAttestationResponse" : "authenticatorAssertionResponse"
        }
    }

    /// Byte fields of the browser's `response` object, normalised to base64url.
    private static let browserBytes: Set<String> = [
        "clientDataJSON", "attestationObject", "authenticatorData", "signature", "userHandle",
    ]

    /// `text` (base64 or base64url, padded or not) re-encoded as unpadded base64url; nil when it
    /// is neither, or empty.
    static func base64URL(_ text: String) -> String? {
        var trimmed = Substring(text)
        for _ in 0..<2 where trimmed.hasSuffix("=") { trimmed = trimmed.dropLast() }
        let urlSafe = String(trimmed.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
        guard !urlSafe.isEmpty, let bytes = Base64URL.decode(urlSafe), !bytes.isEmpty else { return nil }
        return Base64URL.encode(bytes)
    }

    /// The credential under `field`, as the JSON text of the browser's `PublicKeyCredential.toJSON()`
    /// for the engine: given in that form (`id`, `rawId`, `type`, `response`), its byte fields
    /// re-encoded; given in Google's (`credentialId`, `credentialType`, and the attestation or
    /// assertion with `clientDataJson`), rewritten, each wrong field named by Google's name.
    static func browserCredential(_ r: ObjectReader, _ field: String, ceremony: Ceremony) throws -> String {
        guard case let .object(pairs)? = r.value(field) else {
            let problem = r.value(field) == nil ? "is required" : "must be an object"
            throw r.refusal(field, "\(problem): Google's \(field) or the browser's PublicKeyCredential JSON")
        }
        let browser = pairs.contains { ["id", "rawId", "type", "response"].contains($0.0) }
        let credential =
            browser ? normalised(pairs) : try rewritten(try ObjectReader(.object(pairs), path: field), ceremony)
        // Read here as the engine will, so that a wrong part is named under this request's field.
        _ = try PasskeyResponse.read(credential, field: field, ceremony: ceremony == .registration ? .create : .get)
        return JSONCodec.serialize(credential)
    }

    private static func normalised(_ pairs: [(String, JSONValue)]) -> JSONValue {
        func canonical(_ value: JSONValue) -> JSONValue {
            value.stringValue.flatMap(base64URL).map { .string($0) } ?? value
        }
        return .object(
            pairs.map { key, value in
                switch (key, value) {
                case ("id", _), ("rawId", _): return (key, canonical(value))
                case let ("response", .object(inner)):
                    return (key, .object(inner.map { browserBytes.contains($0.0) ? ($0.0, canonical($0.1)) : $0 }))
                default: return (key, value)
                }
            })
    }

    private static func rewritten(_ o: ObjectReader, _ ceremony: Ceremony) throws -> JSONValue {
        try o.rejectUnknown(["credentialId", "credentialType", ceremony.responseField])
        let id = try bytes(o, "credentialId")
        if let type = try o.string("credentialType"), type != "PUBLIC_KEY" {
            throw o.refusal("credentialType", "must be \"PUBLIC_KEY\"")
        }
        guard let inner = try o.object(ceremony.responseField) else {
            throw o.refusal(ceremony.responseField, "is required")
        }
        var response: [(String, JSONValue)] = [("clientDataJSON", .string(try bytes(inner, "clientDataJson")))]
        switch ceremony {
        case .registration:
            try inner.rejectUnknown(["clientDataJson", "attestationObject", "transports"])
            response.append(("attestationObject", .string(try bytes(inner, "attestationObject"))))
            if let transports = inner.value("transports") {
                guard let items = transports.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                    throw inner.refusal("transports", "must be an array of strings")
                }
                response.append(("transports", transports))
            }
        case .assertion:
            try inner.rejectUnknown(["clientDataJson", "authenticatorData", "signature", "userHandle"])
            response.append(("authenticatorData", .string(try bytes(inner, "authenticatorData"))))
            response.append(("signature", .string(try bytes(inner, "signature"))))
            if try inner.string("userHandle") != nil {
                response.append(("userHandle", .string(try bytes(inner, "userHandle"))))
            }
        }
        return .object([
            ("id", .string(id)), ("rawId", .string(id)), ("type", .string("public-key")),
            ("response", .object(response)),
        ])
    }

    private static func bytes(_ o: ObjectReader, _ key: String) throws -> String {
        guard let text = try o.string(key), let canonical = base64URL(text) else {
            throw o.refusal(key, "must be bytes in base64 or base64url")
        }
        return canonical
    }

    /// The engine's creation options in Google's schema: `pubKeyCredParams` as
    /// `{alg: "-7", credentialType: "PUBLIC_KEY"}`, `excludeCredentials` as `{credentialId,
    /// credentialType, transports?}`; `rp`, `user`, `challenge`, `timeout` and
    /// `authenticatorSelection` as they are.
    static func creationOptions(_ options: JSONValue) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("rp", options["rp"])
        o.set("user", options["user"])
        o.set("challenge", options["challenge"])
        o.set(
            "pubKeyCredParams",
            .array(
                (options["pubKeyCredParams"]?.arrayValue ?? []).map {
                    .object([
                        ("alg", .string(String($0["alg"]?.intValue ?? 0))), ("credentialType", .string("PUBLIC_KEY")),
                    ])
                }))
        o.set("timeout", options["timeout"])
        o.set(
            "excludeCredentials",
            .array(
                (options["excludeCredentials"]?.arrayValue ?? []).map {
                    var d = JSONObjectBuilder()
                    d.set("credentialId", $0["id"])
                    d.set("credentialType", .string("PUBLIC_KEY"))
                    d.set("transports", $0["transports"])
                    return d.value
                }))
        o.set("authenticatorSelection", options["authenticatorSelection"])
        return o.value
    }

    /// The engine's request options in Google's schema: `challenge`, `rpId`, `userVerification`
    /// and `timeout` (a sign-in here is discoverable: no credentials are listed).
    static func requestOptions(_ options: JSONValue) -> JSONValue {
        var o = JSONObjectBuilder()
        for key in ["challenge", "rpId", "userVerification", "timeout"] { o.set(key, options[key]) }
        return o.value
    }
}
