/// Second factors: enrolling an SMS number or an authenticator app, removing one, and completing
/// a sign-in that needs one.
package final class MultiFactorService {
    private let config: EngineConfig
    private let clock: Clock
    private let store: any MultiFactorStore & AccountStore
    private let keys: KeyRing
    private let sessions: SessionService
    private let verification: VerificationService
    private let accounts: AccountService
    let tenants: TenantService

    init(
        config: EngineConfig, clock: Clock, store: any MultiFactorStore & AccountStore, keys: KeyRing,
        sessions: SessionService, verification: VerificationService, accounts: AccountService,
        tenants: TenantService
    ) {
        self.tenants = tenants
        self.config = config
        self.clock = clock
        self.store = store
        self.keys = keys
        self.sessions = sessions
        self.verification = verification
        self.accounts = accounts
    }

    /// What mfaTotpStart hands the user's authenticator app.
    package struct TotpEnrollmentStarted: Sendable {
        package let sessionInfo: String
        package let secretKey: String
        package let otpauthUri: String
        package let expiresAt: Timestamp
    }

    /// A second factor presented to complete a challenge.
    package enum Assertion: Sendable {
        case phone(PhoneCredential)
        case totp(enrollmentId: String, code: String)
    }

    /// Sends a code to a number the signed-in user is enrolling as an SMS second factor.
    /// (The tenant the caller names, here and below, if it names one, must be the ID token's.)
    package func startPhoneEnrollment(
        idToken: String, phoneNumber: String?, appProof: AppProof? = nil, channel: Channel? = nil, for caller: Caller
    ) throws -> VerificationStarted {
        let user = try sessions.session(of: idToken, recent: true, for: caller).user
        let pool = try pool(of: user, allowing: .phone)
        let phone = try PhoneNumber.parse(phoneNumber)
        // Refuse before sending an SMS what finalizing would refuse anyway, as far as the user's own
        // account tells: whether another user has the number is only said once the code proves it.
        if user.factors.contains(where: { $0.phoneNumber == phone.e164 }) {
            throw AccountErrors.error(AccountRefusal.secondFactorAlreadyEnrolled)
        }
        if user.phoneNumber == phone.e164 { throw AccountErrors.error(AccountRefusal.unsupportedFirstFactor) }
        try checkRoomForFactor(user)
        return try verification.sendCode(
            to: phone, purpose: .enroll, subject: user.uid, appProof: appProof, user: user, channel: channel,
            for: caller, in: pool)
    }

    /// The pool of `user`, if its users may enrol factors of `kind` (the tenant's `secondFactors`).
    private func pool(of user: UserRecord, allowing kind: FactorKind) throws -> Pool {
        let pool = try tenants.pool(of: user)
        guard pool.allows(kind) else {
            throw PhoneAuthError(
                .operationNotAllowed, "Second factors of kind \(kind.rawValue) are not enabled for \(user.tenant).",
                details: [("reason", .string("factorNotAllowed")), ("factorId", .string(kind.rawValue))])
        }
        return pool
    }

    package func finishPhoneEnrollment(
        idToken: String, credential: PhoneCredential, displayName: Label?, for caller: Caller
    ) throws -> SignInResult {
        try VerificationService.checkCredential(credential)
        let session = try sessions.session(of: idToken, recent: true, for: caller)
        let pool = try pool(of: session.user, allowing: .phone)
        let now = clock.now()
        let factor = newFactor(.phone, displayName: displayName, now: now)
        let (continued, first) = try continuation(of: session, proving: factor, now: now)
        let signIn = try sessions.retryable(continued, first, now: now)
        return try sessions.finish(
            try store.redeemForAccount(
                id: credential.verificationId, uid: session.user.uid, presentedSession: session.sessionId,
                change: .enrollPhone(factor), now: now,
                maxAttempts: config.maxAttempts, limits: verification.checkLimits(for: caller, in: pool),
                codeMatches: verification.codeMatcher(credential), signIn: signIn),
            first, now: now, clientIp: caller.address)
    }

    /// Generates a TOTP secret for the signed-in user and keeps it, sealed, until a first code
    /// from the authenticator proves the user stored it.
    package func startTotpEnrollment(
        idToken: String, accountName: Label?, issuer: Label?, for caller: Caller
    ) throws -> TotpEnrollmentStarted {
        let session = try sessions.session(of: idToken, recent: true, for: caller)
        _ = try pool(of: session.user, allowing: .totp)
        try checkRoomForFactor(session.user)
        let now = clock.now()
        let secret = Totp.newSecret()
        let pending = NewMFASession(
            id: SortableID.make(at: now, randomBytes: 18), kind: .totpEnrollment,
            expiresAt: now.adding(seconds: config.mfaSessionTtlSeconds),
            sealedSecret: try keys.sealTotpSecret(secret, uid: session.user.uid))
        _ = try accounts.user(
            from: try store.openMFASession(
                pending, uid: session.user.uid, presentedSession: session.sessionId,
                provider: session.provider, now: now))
        let account = accountName?.text ?? session.user.phoneNumber ?? session.user.uid
        return TotpEnrollmentStarted(
            sessionInfo: pending.id, secretKey: Base32.encode(secret),
            otpauthUri: Totp.uri(secret: secret, account: account, issuer: issuer?.text ?? config.projectId),
            expiresAt: pending.expiresAt)
    }

    package func finishTotpEnrollment(
        idToken: String, sessionInfo: String, code: String, displayName: Label?, for caller: Caller
    ) throws -> SignInResult {
        let session = try sessions.session(of: idToken, recent: true, for: caller)
        _ = try pool(of: session.user, allowing: .totp)
        let now = clock.now()
        let factor = newFactor(.totp, displayName: displayName, now: now)
        let (continued, first) = try continuation(of: session, proving: factor, now: now)
        let signIn = try sessions.retryable(continued, first, now: now)
        let outcome = try store.enrollTotp(
            sessionId: sessionInfo, uid: session.user.uid, presentedSession: session.sessionId,
            check: totpCheck(code, now: now),
            factor: factor, now: now, maxAttempts: config.maxAttempts, signIn: signIn)
        return try sessions.finish(outcome, first, now: now)
    }

    /// Removes a second factor (a recent sign-in is required). Sessions continue, and the caller
    /// gets fresh tokens of a continuation of its session, as after an enrolment.
    package func unenroll(idToken: String, enrollmentId: String, for caller: Caller) throws -> SignInResult {
        let session = try sessions.session(of: idToken, recent: true, for: caller)
        let now = clock.now()
        var (signIn, first) = try sessions.continuation(of: session, now: now)
        if signIn.secondFactorEnrollment == enrollmentId {  // the factor this session proved is gone
            (signIn.secondFactor, signIn.secondFactorEnrollment) = (nil, nil)
        }
        return try sessions.finish(
            try store.unenroll(
                uid: session.user.uid, presentedSession: session.sessionId, enrollmentId: enrollmentId,
                signIn: signIn, now: now),
            first, now: now)
    }

    /// Sends a code to the enrolled number `hint` of the challenge `session` of the caller's pool,
    /// without revealing it.
    package func verifySecondFactor(
        hint: String?, session: String?, appProof: AppProof? = nil, channel: Channel? = nil, for caller: Caller
    ) throws -> VerificationStarted {
        let pool = try tenants.pool(for: caller)
        guard let session, !session.isEmpty else { throw MultiFactorErrors.missingSession }
        guard let hint, !hint.isEmpty else { throw MultiFactorErrors.missingInfo }
        let user = try accounts.user(
            from: try store.mfaSessionUser(id: session, kind: .signIn, in: pool, now: clock.now()))
        guard let number = user.factors.first(where: { $0.enrollmentId == hint && $0.factorId == .phone })?.phoneNumber
        else { throw AccountErrors.error(AccountRefusal.multiFactorInfoNotFound) }
        return try verification.sendCode(
            to: try PhoneNumber.parse(number), purpose: .mfaSignIn, subject: session, appProof: appProof, user: user,
            channel: channel, for: caller, in: pool)
    }

    /// Completes a challenge of the caller's pool: the session's user signs in with this second
    /// factor. The caller's address goes to events (and, with an SMS code, the per-IP limit).
    package func resolveSignIn(session: String?, assertion: Assertion?, for caller: Caller) throws -> SignInResult {
        let pool = try tenants.pool(for: caller)
        guard let session, !session.isEmpty else { throw MultiFactorErrors.missingSession }
        guard let assertion else { throw MultiFactorErrors.missingInfo }
        let now = clock.now()
        let proof: SecondFactorProof
        var limits = CheckLimits.none
        switch assertion {
        case let .phone(credential):
            // The ID's shape is not checked here: the session is checked first, and a malformed ID is simply unknown.
            if credential.isTemporaryProof { try VerificationService.checkCredential(credential) }
            proof = .phone(verificationId: credential.verificationId, codeMatches: verification.codeMatcher(credential))
            limits = verification.checkLimits(for: caller, in: pool)
        case let .totp(enrollmentId, code):
            proof = .totp(enrollmentId: enrollmentId, check: totpCheck(code, now: now))
        }
        // The store gives the session the challenge's own provider.
        let (made, first) = sessions.newSignIn(uid: "", in: pool, provider: .phone, now: now)
        let signIn = try sessions.retryable(made, first, now: now)
        return try sessions.finish(
            try store.resolveSecondFactor(
                sessionId: session, proof: proof, now: now, maxAttempts: config.maxAttempts,
                limits: limits, signIn: signIn),
            first, now: now, clientIp: caller.address)
    }

    private func checkRoomForFactor(_ user: UserRecord) throws {
        if user.factors.count >= config.mfaMaxFactors {
            throw AccountErrors.error(AccountRefusal.maximumSecondFactorCountExceeded)
        }
    }

    private func newFactor(_ factorId: FactorKind, displayName: Label?, now: Timestamp) -> NewFactor {
        NewFactor(
            enrollmentId: SortableID.make(at: now, randomBytes: 12), factorId: factorId, displayName: displayName?.text,
            maxFactors: config.mfaMaxFactors)
    }

    /// The fresh session an enrolment returns: signed in with the factor just proved.
    private func continuation(
        of session: SessionInfo, proving factor: NewFactor, now: Timestamp
    ) throws -> (NewSignIn, RefreshToken) {

        var (signIn, first) = try sessions.continuation(of: session, now: now)
        signIn.secondFactor = factor.factorId
        signIn.secondFactorEnrollment = factor.enrollmentId
        return (signIn, first)
    }

    /// Opens the user's sealed secret and finds the step `code` belongs to.
    private func totpCheck(_ code: String, now: Timestamp) -> TotpCheck {
        let keys = self.keys
        return { sealed, uid, lastStep in
            guard let secret = keys.openTotpSecret(sealed, uid: uid) else { return nil }
            return Totp.matchingStep(secret: secret, code: code, at: now, after: lastStep)
        }
    }
}
