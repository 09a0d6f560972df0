/// Account changes made by a signed-in user with a phone credential: linking, changing and
/// unlinking the phone number, and re-authentication.
extension Engine {
    /// The live session `idToken` belongs to. `recent` also requires its sign-in to be at most
    /// `mfa.recentSignInSeconds` old, as for changes a stolen token must not make.
    func session(of idToken: String, recent: Bool) throws -> SessionInfo {
        let now = clock.now()
        let claims = try tokens.verify(idToken, now: now)
        guard let uid = claims["sub"]?.stringValue, let sid = claims["sid"]?.stringValue else {
            throw PhoneAuthError(.invalidIdToken, "The ID token does not name its session; sign in again.", details: [("reason", .string("missingClaim"))])
        }
        guard let session = try store.liveSession(uid: uid, id: sid) else {
            guard let user = try store.user(uid: uid) else { throw Self.noUser }
            throw Self.error(user.disabled ? AccountRefusal.userDisabled : .sessionEnded)
        }
        if session.user.disabled { throw Self.disabledUser }
        if recent && now.milliseconds - session.authTime.milliseconds > config.mfaRecentSignInSeconds * 1000 {
            throw PhoneAuthError(.requiresRecentLogin, "This change needs a sign-in within the last \(config.mfaRecentSignInSeconds) seconds; re-authenticate first.",
                                 details: [("authTime", .string(session.authTime.rfc3339))])
        }
        return session
    }

    /// A new session that carries on `session` (same first and second factor, same auth_time),
    /// for the fresh tokens an account change returns. The presented session stays valid.
    /// `provider` is the credential just proved, when there is one (a link or a number change
    /// makes it a phone session, as Firebase's tokens say after them).
    func continuation(of session: SessionInfo, provider: SignInProvider? = nil, now: Timestamp)
        -> (NewSignIn, RefreshToken) {
        var (signIn, first) = newSignIn(uid: session.user.uid, provider: provider ?? session.provider, now: now,
                                        developerClaims: session.developerClaims)
        signIn.authTime = session.authTime
        signIn.secondFactor = session.secondFactor
        signIn.secondFactorEnrollment = session.secondFactorEnrollment
        signIn.challenge = nil
        return (signIn, first)
    }

    /// Adds the credential's phone number to the signed-in user (a recent sign-in is required: a
    /// stolen token must not add a permanent way in). If another user has it, the error
    /// credentialAlreadyInUse carries a temporary proof that signs in to that user instead.
    package func link(idToken: String, credential: PhoneCredential) throws -> SignInResult {
        try changeNumber(idToken: idToken, credential: credential, AccountChange.link)
    }

    /// Replaces the signed-in user's phone number with the credential's (a recent sign-in is
    /// required); a number another user has is refused as `link` refuses it, with a proof.
    package func updatePhoneNumber(idToken: String, credential: PhoneCredential) throws -> SignInResult {
        try changeNumber(idToken: idToken, credential: credential, AccountChange.updatePhoneNumber)
    }

    /// Link or number change: the code is checked and applied in one transaction. If another
    /// user has the number, the code is consumed and becomes a temporary proof, returned in
    /// credentialAlreadyInUse's details with the number the code proved (Firebase's clients keep
    /// both).
    private func changeNumber(idToken: String, credential: PhoneCredential,
                              _ change: (_ proof: TemporaryProof) -> AccountChange) throws -> SignInResult {
        try Self.checkCredential(credential)
        let session = try session(of: idToken, recent: true)
        let now = clock.now()
        let (signIn, first) = continuation(of: session, provider: .phone, now: now)
        let secret = Base64URL.encode(SecureBytes.random(count: 32))
        let proofId = VerificationCode.newVerificationId(at: now)
        let proof = TemporaryProof(verificationId: proofId, codeHash: keys.codeHash(verificationId: proofId, code: secret),
                                   expiresAt: now.adding(seconds: config.temporaryProofTtlSeconds))
        let outcome = try store.redeemForAccount(id: credential.verificationId, uid: session.user.uid, presentedSession: session.sessionId,
                                                 change: change(proof), now: now, maxAttempts: config.maxAttempts,
                                                 limits: checkLimits(credential), codeMatches: codeMatcher(credential), signIn: signIn)
        if case let .refused(.credentialAlreadyInUse(phone)) = outcome {
            throw PhoneAuthError(.credentialAlreadyInUse,
                                 "Another account already has this phone number; details.temporaryProof signs in to that account (signInWithCredential).",
                                 details: [("temporaryProof", .string(proofId + "." + secret)), ("expiresAt", .string(proof.expiresAt.rfc3339)),
                                           ("phoneNumber", .string(phone))])
        }
        return try finish(outcome, signIn, first, now: now, clientIp: credential.clientIp)
    }

    /// Proves the signed-in user's phone number again: a new session whose auth_time is now (after
    /// the second factor, if the user has any).
    package func reauthenticate(idToken: String, credential: PhoneCredential) throws -> SignInResult {
        try Self.checkCredential(credential)
        let session = try session(of: idToken, recent: false)
        let now = clock.now()
        let (signIn, first) = newSignIn(uid: session.user.uid, provider: .phone, now: now)
        return try finish(try store.redeemForAccount(id: credential.verificationId, uid: session.user.uid, presentedSession: session.sessionId, change: .reauthenticate, now: now,
                                                     maxAttempts: config.maxAttempts, limits: checkLimits(credential), codeMatches: codeMatcher(credential), signIn: signIn),
                          signIn, first, now: now, clientIp: credential.clientIp)
    }

    /// Removes the phone number from the signed-in user (a recent sign-in is required: a stolen
    /// token must not lock the owner out). The user's sessions continue.
    package func unlink(idToken: String, providerId: String) throws -> UserRecord {
        let session = try session(of: idToken, recent: true)
        guard providerId == "phone" else {
            throw PhoneAuthError(.noSuchProvider, "PhoneAuth accounts have one linkable provider, \"phone\".", details: [("field", .string("providerId"))])
        }
        return try user(from: try store.unlinkPhone(uid: session.user.uid, presentedSession: session.sessionId))
    }

    /// The user of an outcome that opens no session, or the error it stands for.
    func user(from outcome: AccountOutcome) throws -> UserRecord {
        switch outcome {
        case let .done(user): return user
        case let .signedIn(session, _): return session.user
        case let .rejected(rejection): throw rejected(rejection, clientIp: nil, now: clock.now())
        case let .refused(refusal): throw Self.error(refusal)
        case let .secondFactorRequired(user): throw PhoneAuthError(.internalError, "Unexpected challenge for user \(user.uid).")
        case let .locked(until): throw MultiFactorErrors.factorLocked(until: until, now: clock.now())
        }
    }
}
