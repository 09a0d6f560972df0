/// The browser's answer to a passkey ceremony, as `PublicKeyCredential.toJSON()` writes it:
/// `{id, rawId, type: "public-key", response: {clientDataJSON, attestationObject | authenticatorData,
/// signature, userHandle?, transports?}, authenticatorAttachment?, clientExtensionResults?}`, the
/// binary fields in base64url. Read by every door (the JSON methods, phoneauthd).
package struct PasskeyResponse: Sendable {
    package var credentialId: String
    package var clientData: [UInt8]
    /// Enrolment: the attestation object. Sign-in: the authenticator data and signature.
    package var attestationObject: [UInt8] = []
    package var authenticatorData: [UInt8] = []
    package var signature: [UInt8] = []

    package init(credentialId: String, clientData: [UInt8]) {
        self.credentialId = credentialId
        self.clientData = clientData
    }

    /// The object `value` (the parameter `field`) for `ceremony`, each part checked and named in
    /// the error when it is wrong.
    package static func read(
        _ value: JSONValue?, field: String, ceremony: ClientData.Ceremony
    ) throws(PhoneAuthError) -> PasskeyResponse {
        guard let value else {
            throw PhoneAuthError(
                .invalidArgument, "The field '\(field)' is required: the browser's PublicKeyCredential as JSON.",
                details: [("field", .string(field))])
        }
        let o = try ObjectReader(value, path: field)
        try o.rejectUnknown(["id", "rawId", "type", "response", "authenticatorAttachment", "clientExtensionResults"])
        guard let id = try o.string("id"), (1...1400).contains(id.utf8.count), Base64URL.decode(id) != nil else {
            throw o.refusal("id", "must be the credential's ID in base64url")
        }
        guard try o.string("rawId") ?? id == id else { throw o.refusal("rawId", "must be the same as id") }
        guard try o.string("type") ?? "public-key" == "public-key" else {
            throw o.refusal("type", "must be \"public-key\"")
        }
        guard let r = try o.object("response") else { throw o.refusal("response", "is required") }
        try r.rejectUnknown([
            "clientDataJSON", "attestationObject", "authenticatorData", "signature", "userHandle", "transports",
            "publicKey", "publicKeyAlgorithm",
        ])
        var response = PasskeyResponse(credentialId: id, clientData: try bytes(r, "clientDataJSON", max: 4096))
        switch ceremony {
        case .create: response.attestationObject = try bytes(r, "attestationObject", max: 65536)
        case .get:
            response.authenticatorData = try bytes(r, "authenticatorData", max: 8192)
            response.signature = try bytes(r, "signature", max: 1024)
        }
        return response
    }

    private static func bytes(_ r: ObjectReader, _ key: String, max: Int) throws(PhoneAuthError) -> [UInt8] {
        guard let text = try r.string(key), let bytes = Base64URL.decode(text), !bytes.isEmpty, bytes.count <= max
        else { throw r.refusal(key, "must be base64url of at most \(max) bytes") }
        return bytes
    }
}
