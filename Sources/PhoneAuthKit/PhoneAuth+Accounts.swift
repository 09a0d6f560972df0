import PhoneAuthCore

/// A signed-in user's number (link, change, unlink), re-authentication, custom tokens and
/// authenticator-app (TOTP) second factors.
extension PhoneAuth {
    /// Adds the number the credential proves to the signed-in user (`idToken` from a recent
    /// sign-in). A number another account has throws ``PhoneAuthError/Code/credentialAlreadyInUse``
    /// with a ``PhoneAuthError/temporaryProof`` that signs in to that account.
    public func link(
        idToken: String, credential: PhoneCredential, clientIP: String? = nil, userAgent: String? = nil
    ) throws(PhoneAuthError) -> SignInResult {
        let core = credential.core
        return SignInResult(
            try run("linkWithCredential") {
                try $0.accounts.link(
                    idToken: idToken, credential: core,
                    for: try caller(clientIP: clientIP, userAgent: userAgent))
            })
    }

    /// Replaces the signed-in user's number with the one the credential proves. A number another
    /// account has is refused as `link` refuses it, with a ``PhoneAuthError/temporaryProof``.
    public func updatePhoneNumber(
        idToken: String, credential: PhoneCredential, clientIP: String? = nil, userAgent: String? = nil
    ) throws(PhoneAuthError) -> SignInResult {
        let core = credential.core
        return SignInResult(
            try run("updatePhoneNumber") {
                try $0.accounts.updatePhoneNumber(
                    idToken: idToken, credential: core,
                    for: try caller(clientIP: clientIP, userAgent: userAgent))
            })
    }

    /// Proves again that the signed-in user has their number, for operations that need a recent
    /// sign-in; the credential must be for the user's own number.
    public func reauthenticate(
        idToken: String, credential: PhoneCredential, clientIP: String? = nil, userAgent: String? = nil
    ) throws(PhoneAuthError) -> SignInResult {
        let core = credential.core
        return SignInResult(
            try run("reauthenticateWithCredential") {
                try $0.accounts.reauthenticate(
                    idToken: idToken, credential: core,
                    for: try caller(clientIP: clientIP, userAgent: userAgent))
            })
    }

    /// Removes the signed-in user's number (they then sign in another way, e.g. a custom token).
    public func unlinkPhoneNumber(idToken: String) throws(PhoneAuthError) -> User {
        User(try run("unlink") { try $0.accounts.unlink(idToken: idToken, providerId: "phone", for: try caller()) })
    }

    /// Signs in with a token from `createCustomToken(uid:claimsJSON:)` (made by this engine, or
    /// signed by a service account key it trusts).
    public func signIn(withCustomToken token: String) throws(PhoneAuthError) -> SignInResult {
        SignInResult(
            try run("signInWithCustomToken") {
                try $0.signIn.signIn(withCustomToken: token, for: try caller())
            })
    }

    /// Starts enrolling an authenticator app for the signed-in user: show the secret (or the URI
    /// as a QR code), then finish with the app's first code.
    /// - Parameters:
    ///   - idToken: the user's ID token, from a recent sign-in.
    ///   - accountName: the account's name in the app (default: the user's number or uid).
    ///   - issuer: the service's name in the app (default: the project ID).
    public func startTotpEnrollment(
        idToken: String, accountName: String? = nil, issuer: String? = nil
    ) throws(PhoneAuthError) -> TotpEnrollment {
        TotpEnrollment(
            try run("mfaTotpStart") {
                try $0.multiFactor.startTotpEnrollment(
                    idToken: idToken, accountName: try Label(accountName, field: "accountName"),
                    issuer: try Label(issuer, field: "issuer"), for: try caller())
            })
    }

    /// Enrols the authenticator app whose current code is `code`.
    public func finishTotpEnrollment(
        idToken: String, enrollment: TotpEnrollment, code: String,
        displayName: String? = nil
    ) throws(PhoneAuthError) -> SignInResult {
        SignInResult(
            try run("mfaEnrollFinalize") {
                try $0.multiFactor.finishTotpEnrollment(
                    idToken: idToken, sessionInfo: enrollment.session, code: code,
                    displayName: try Label(displayName, field: "displayName"), for: try caller())
            })
    }

    /// Finishes a challenge's sign-in with the current code of the authenticator app
    /// `enrollmentID` (a hint of the challenge whose `factorId` is `totp`).
    public func resolveSignIn(
        session: String, totpEnrollmentID enrollmentID: String, code: String,
        clientIP: String? = nil, userAgent: String? = nil
    ) throws(PhoneAuthError) -> SignInResult {
        SignInResult(
            try run("mfaResolveSignIn") {
                try $0.multiFactor.resolveSignIn(
                    session: session, assertion: .totp(enrollmentId: enrollmentID, code: code),
                    for: try caller(clientIP: clientIP, userAgent: userAgent))
            })
    }

    /// `async`: `link` run on a Dispatch queue, the caller suspended meanwhile.
    public func link(
        idToken: String, credential: PhoneCredential, clientIP: String? = nil, userAgent: String? = nil
    ) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in
            try self.link(idToken: idToken, credential: credential, clientIP: clientIP, userAgent: userAgent)
        }
    }

    /// `async`: `updatePhoneNumber` run on a Dispatch queue, the caller suspended meanwhile.
    public func updatePhoneNumber(
        idToken: String, credential: PhoneCredential, clientIP: String? = nil, userAgent: String? = nil
    ) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in
            try self.updatePhoneNumber(
                idToken: idToken, credential: credential, clientIP: clientIP, userAgent: userAgent)
        }
    }

    /// `async`: `reauthenticate` run on a Dispatch queue, the caller suspended meanwhile.
    public func reauthenticate(
        idToken: String, credential: PhoneCredential, clientIP: String? = nil, userAgent: String? = nil
    ) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in
            try self.reauthenticate(idToken: idToken, credential: credential, clientIP: clientIP, userAgent: userAgent)
        }
    }

    /// `async`: `unlinkPhoneNumber` run on a Dispatch queue, the caller suspended meanwhile.
    public func unlinkPhoneNumber(idToken: String) async throws(PhoneAuthError) -> User {
        try await offload { () throws(PhoneAuthError) in try self.unlinkPhoneNumber(idToken: idToken) }
    }

    /// `async`: `signIn(withCustomToken:)` run on a Dispatch queue, the caller suspended meanwhile.
    public func signIn(withCustomToken token: String) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in try self.signIn(withCustomToken: token) }
    }

    /// `async`: `startTotpEnrollment` run on a Dispatch queue, the caller suspended meanwhile.
    public func startTotpEnrollment(
        idToken: String, accountName: String? = nil, issuer: String? = nil
    ) async throws(PhoneAuthError) -> TotpEnrollment {
        try await offload { () throws(PhoneAuthError) in
            try self.startTotpEnrollment(idToken: idToken, accountName: accountName, issuer: issuer)
        }
    }

    /// `async`: `finishTotpEnrollment` run on a Dispatch queue, the caller suspended meanwhile.
    public func finishTotpEnrollment(
        idToken: String, enrollment: TotpEnrollment, code: String,
        displayName: String? = nil
    ) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in
            try self.finishTotpEnrollment(
                idToken: idToken, enrollment: enrollment, code: code, displayName: displayName)
        }
    }

    /// `async`: `resolveSignIn(session:totpEnrollmentID:code:clientIP:)` run on a Dispatch queue.
    public func resolveSignIn(
        session: String, totpEnrollmentID enrollmentID: String, code: String,
        clientIP: String? = nil, userAgent: String? = nil
    ) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in
            try self.resolveSignIn(
                session: session, totpEnrollmentID: enrollmentID, code: code, clientIP: clientIP, userAgent: userAgent)
        }
    }
}
