import PhoneAuthCore

/// Passkeys after phone sign-in (docs/API.md, "Passkeys"): a signed-in user registers one, and
/// signs in with it later instead of a code. The ceremonies' options and the browser's answers
/// are WebAuthn's own JSON, as text: hand the options to the page's
/// `PublicKeyCredential.parseCreationOptionsFromJSON` (or `parseRequestOptionsFromJSON`), and
/// pass back what the credential's `toJSON()` gives (binary fields in base64url). Each is the
/// JSON method of the same name, typed.
extension PhoneAuth {
    /// WebAuthn's creation options (`PublicKeyCredentialCreationOptionsJSON`, as JSON text) for
    /// the user of `idToken`, from a recent sign-in: a resident key, the relying party, the user
    /// handle, and the user's passkeys excluded. The challenge works once, for
    /// `passkeys.challengeTtlSeconds`. Each start counts against `clientIP`
    /// (`quotas.appChecksPerIpPerHour`).
    public func startPasskeyEnrollment(
        idToken: String, clientIP: String? = nil, userAgent: String? = nil
    ) throws(PhoneAuthError) -> String {
        JSONCodec.serialize(
            try run("startPasskeyEnrollment") {
                try $0.passkeys.startEnrollment(
                    idToken: idToken, for: try caller(clientIP: clientIP, userAgent: userAgent))
            })
    }

    /// Registers the passkey the browser made (`credential`: the JSON text of its
    /// `PublicKeyCredential.toJSON()`) to the user of `idToken`, and carries the session on with
    /// fresh tokens, as a second factor's enrolment does. A refusal is
    /// ``PhoneAuthError/Code/invalidCredential`` whose details name the reason (`wrongChallenge`,
    /// `wrongOrigin`, …); more than `passkeys.maxPerUser` is ``PhoneAuthError/Code/quotaExceeded``.
    /// - Parameters:
    ///   - idToken: the user's ID token, from a recent sign-in.
    ///   - credential: the browser's credential as JSON text.
    ///   - name: a name for people (default `Passkey`).
    public func finishPasskeyEnrollment(
        idToken: String, credential: String, name: String? = nil
    ) throws(PhoneAuthError) -> (passkey: Passkey, signIn: SignInResult) {
        let (passkey, result) = try run("finishPasskeyEnrollment") {
            try $0.passkeys.finishEnrollment(
                idToken: idToken, response: try Self.passkeyResponse(credential, ceremony: .create),
                name: try Label(name, field: "name"), for: try caller())
        }
        return (Passkey(passkey), SignInResult(result))
    }

    /// WebAuthn's request options (`PublicKeyCredentialRequestOptionsJSON`, as JSON text) for a
    /// sign-in: any passkey of the pool (discoverable), or the user's that `uid` or `phoneNumber`
    /// names. A name with no passkey gets a decoy credential, so the answer tells no one who has
    /// an account. Each start counts against `clientIP` (`quotas.appChecksPerIpPerHour`).
    public func startPasskeySignIn(
        uid: String? = nil, phoneNumber: String? = nil, clientIP: String? = nil, userAgent: String? = nil
    ) throws(PhoneAuthError) -> String {
        JSONCodec.serialize(
            try run("startPasskeySignIn") {
                try $0.passkeys.startSignIn(
                    uid: uid, phoneNumber: phoneNumber, for: try caller(clientIP: clientIP, userAgent: userAgent))
            })
    }

    /// Signs in with the browser's assertion (`credential`: the JSON text of its
    /// `PublicKeyCredential.toJSON()`), as `signIn(with:clientIP:userAgent:)` does with a code:
    /// the session's provider is `passkey`, and an account with second factors gets
    /// ``PhoneAuthError/Code/secondFactorRequired`` with its ``PhoneAuthError/multiFactorChallenge``.
    /// A refusal is ``PhoneAuthError/Code/invalidCredential`` whose details name the reason.
    public func finishPasskeySignIn(
        credential: String, clientIP: String? = nil, userAgent: String? = nil
    ) throws(PhoneAuthError) -> SignInResult {
        SignInResult(
            try run("finishPasskeySignIn") {
                try $0.passkeys.finishSignIn(
                    response: try Self.passkeyResponse(credential, ceremony: .get),
                    for: try caller(clientIP: clientIP, userAgent: userAgent))
            })
    }

    /// The passkeys of the user of `idToken`, oldest first.
    public func listPasskeys(idToken: String) throws(PhoneAuthError) -> [Passkey] {
        try run("listPasskeys") { try $0.passkeys.passkeys(idToken: idToken, for: try caller()) }.map(Passkey.init)
    }

    /// Removes a passkey of the user of `idToken` (from a recent sign-in); another user's is
    /// ``PhoneAuthError/Code/invalidCredential``, as an unknown one.
    public func deletePasskey(idToken: String, credentialID: String) throws(PhoneAuthError) {
        try run("deletePasskey") {
            try $0.passkeys.remove(credentialId: credentialID, idToken: idToken, for: try caller())
        }
    }

    /// The browser's credential text, read as the JSON methods read their `credential`.
    private static func passkeyResponse(
        _ text: String, ceremony: ClientData.Ceremony
    ) throws -> PasskeyResponse {
        let value: JSONValue
        do { value = try JSONCodec.parse(text) } catch {
            throw PhoneAuthCore.PhoneAuthError(
                .invalidArgument,
                "The credential text is not valid JSON: \(error.message) (line \(error.line), column \(error.column)).",
                details: [("field", .string("credential"))])
        }
        return try PasskeyResponse.read(value, field: "credential", ceremony: ceremony)
    }

    /// `async`: `startPasskeyEnrollment` run on a Dispatch queue, the caller suspended meanwhile.
    public func startPasskeyEnrollment(
        idToken: String, clientIP: String? = nil, userAgent: String? = nil
    ) async throws(PhoneAuthError) -> String {
        try await offload { () throws(PhoneAuthError) in
            try self.startPasskeyEnrollment(idToken: idToken, clientIP: clientIP, userAgent: userAgent)
        }
    }

    /// `async`: `finishPasskeyEnrollment` run on a Dispatch queue, the caller suspended meanwhile.
    public func finishPasskeyEnrollment(
        idToken: String, credential: String, name: String? = nil
    ) async throws(PhoneAuthError) -> (passkey: Passkey, signIn: SignInResult) {
        try await offload { () throws(PhoneAuthError) in
            try self.finishPasskeyEnrollment(idToken: idToken, credential: credential, name: name)
        }
    }

    /// `async`: `startPasskeySignIn` run on a Dispatch queue, the caller suspended meanwhile.
    public func startPasskeySignIn(
        uid: String? = nil, phoneNumber: String? = nil, clientIP: String? = nil, userAgent: String? = nil
    ) async throws(PhoneAuthError) -> String {
        try await offload { () throws(PhoneAuthError) in
            try self.startPasskeySignIn(uid: uid, phoneNumber: phoneNumber, clientIP: clientIP, userAgent: userAgent)
        }
    }

    /// `async`: `finishPasskeySignIn` run on a Dispatch queue, the caller suspended meanwhile.
    public func finishPasskeySignIn(
        credential: String, clientIP: String? = nil, userAgent: String? = nil
    ) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in
            try self.finishPasskeySignIn(credential: credential, clientIP: clientIP, userAgent: userAgent)
        }
    }

    /// `async`: `listPasskeys` run on a Dispatch queue, the caller suspended meanwhile.
    public func listPasskeys(idToken: String) async throws(PhoneAuthError) -> [Passkey] {
        try await offload { () throws(PhoneAuthError) in try self.listPasskeys(idToken: idToken) }
    }

    /// `async`: `deletePasskey` run on a Dispatch queue, the caller suspended meanwhile.
    public func deletePasskey(idToken: String, credentialID: String) async throws(PhoneAuthError) {
        try await offload { () throws(PhoneAuthError) in
            try self.deletePasskey(idToken: idToken, credentialID: credentialID)
        }
    }
}
