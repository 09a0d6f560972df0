/// Sessions and their tokens: what a sign-in opens (a session, its first refresh token, its ID
/// token), refreshing, checking and ending them, and the live session an ID token belongs to.
package final class SessionService {
    private let config: EngineConfig
    private let clock: Clock
    private let store: any SessionStore & AccountStore & SignInStore
    private let keys: KeyRing
    let tokens: IDTokens
    private let events: EventLog
    private let hooks: HookService
    private let failures: FailureReporter
    private let tenants: TenantService

    /// How often a first sign-in is judged again when its number changed hands while the hooks ran.
    static let maxJudgements = 3

    init(
        config: EngineConfig, clock: Clock, store: any SessionStore & AccountStore & SignInStore, keys: KeyRing,
        events: EventLog, hooks: HookService, failures: FailureReporter, tenants: TenantService
    ) {
        self.tenants = tenants
        self.config = config

        self.clock = clock
        self.store = store
        self.keys = keys
        self.events = events
        self.hooks = hooks
        self.failures = failures
        tokens = IDTokens(
            keys: keys, issuer: config.effectiveIssuer, audience: config.projectId,
            lifetimeSeconds: config.idTokenTtlSeconds)
    }

    /// The live session `idToken` belongs to. `recent` also requires its sign-in to be at most
    /// `mfa.recentSignInSeconds` old, as for changes a stolen token must not make. The token must
    /// be of the tenant the caller names, if it names one.
    func session(of idToken: String, recent: Bool, for caller: Caller) throws -> SessionInfo {
        let now = clock.now()
        let claims = try tokens.verify(idToken, now: now, for: caller)
        guard let uid = claims["sub"]?.stringValue, let sid = claims["sid"]?.stringValue else {
            throw PhoneAuthError(
                .invalidIdToken, "The ID token does not name its session; sign in again.",
                details: [("reason", .string("missingClaim"))])
        }
        guard let session = try store.liveSession(uid: uid, id: sid) else {
            guard let user = try store.user(.uid(uid), tenant: IDTokens.tenant(of: claims)) else {
                throw AccountErrors.noUser
            }
            throw AccountErrors.error(user.disabled ? AccountRefusal.userDisabled : .sessionEnded)
        }
        if session.user.disabled { throw AccountErrors.disabledUser }
        if recent && now.milliseconds - session.authTime.milliseconds > config.mfaRecentSignInSeconds * 1000 {
            throw PhoneAuthError(
                .requiresRecentLogin,
                "This change needs a sign-in within the last \(config.mfaRecentSignInSeconds) seconds; "
                    + "re-authenticate first.",
                details: [("authTime", .string(session.authTime.rfc3339))])
        }
        return session
    }

    /// A session to open for `uid` (the store may settle another uid, for an existing user) and its
    /// first refresh token. A user with second factors gets the challenge instead.
    func newSignIn(
        uid: String, in pool: Pool, provider: SignInProvider, now: Timestamp, developerClaims: String? = nil
    )
        -> (NewSignIn, RefreshToken)
    {
        let first = RefreshToken.issue(uid: uid, sessionId: RefreshToken.newSessionId(), generation: 0)
        let challenge = NewMFASession(
            id: SortableID.make(at: now, randomBytes: 18), kind: .signIn,
            expiresAt: now.adding(seconds: config.mfaSessionTtlSeconds))
        return (
            NewSignIn(
                newUid: uid, tenant: pool.tenant, sessionId: first.sessionId, refreshSecretHash: first.secretHash,
                provider: provider,
                developerClaims: developerClaims, hooks: provider == .custom ? [] : hooks.signInHooks,
                challenge: challenge), first
        )
    }

    /// `token`'s secret sealed, for the session to keep (see NewSignIn.sealedSecret).
    func sealed(_ token: RefreshToken) throws -> [UInt8] { try keys.sealRefreshSecret(token) }

    /// `signIn`, made resumable: the same proof presented again within signInRetrySeconds (a
    /// retry after an error whose commit is unknown) gets the session it opened, with `first`
    /// again, never a second one. Unchanged when signInRetrySeconds is 0.
    func retryable(_ signIn: NewSignIn, _ first: RefreshToken, now: Timestamp) throws -> NewSignIn {
        guard config.signInRetrySeconds > 0 else { return signIn }
        var signIn = signIn
        signIn.sealedSecret = try sealed(first)
        signIn.retrySince = now.adding(seconds: -config.signInRetrySeconds)
        return signIn
    }

    /// A new session that carries on `session` (same first and second factor, same auth_time),
    /// for the fresh tokens an account change returns. The presented session stays valid.
    /// `provider` is the credential just proved, when there is one (a link or a number change
    /// makes it a phone session, as Firebase's tokens say after them).
    func continuation(
        of session: SessionInfo, provider: SignInProvider? = nil, now: Timestamp
    ) throws -> (NewSignIn, RefreshToken) {
        var (signIn, first) = newSignIn(
            uid: session.user.uid, in: try tenants.pool(of: session.user), provider: provider ?? session.provider,
            now: now, developerClaims: session.developerClaims)
        signIn.authTime = session.authTime
        signIn.secondFactor = session.secondFactor
        signIn.secondFactorEnrollment = session.secondFactorEnrollment
        signIn.sessionClaims = session.sessionClaims
        signIn.challenge = nil
        return (signIn, first)
    }

    /// Turns a store outcome into tokens, or into the error it stands for: the caller's own
    /// (`explain`, for outcomes it words itself), else the usual one. An outcome waiting for
    /// the hooks is finished once they let it through, with the same `explain`.
    func finish(
        _ outcome: AccountOutcome, _ first: RefreshToken, now: Timestamp,
        clientIp: ClientAddress? = nil, explain: (AccountOutcome) -> PhoneAuthError? = { _ in nil }
    ) throws -> SignInResult {
        if let error = explain(outcome) { throw failures.reported(error, clientIp: clientIp, now: now) }
        switch outcome {
        case let .signedIn(session, isNew):
            let refreshToken = RefreshToken(
                uid: session.user.uid, sessionId: session.sessionId, generation: 0, secret: first.secret)
            return try signedIn(session, refreshToken, isNew: isNew, retried: false, now: now, clientIp: clientIp)
        case let .resumed(session, isNew, sealed):
            let refreshToken = try storedToken(of: session, generation: 0, sealedSecret: sealed)
            return try signedIn(session, refreshToken, isNew: isNew, retried: true, now: now, clientIp: clientIp)
        case let .done(user):
            throw PhoneAuthError(.internalError, "No session was opened for user \(user.uid).")
        case let .rejected(rejection):
            throw failures.rejected(rejection, clientIp: clientIp, now: now)
        case let .refused(refusal):
            throw failures.reported(AccountErrors.error(refusal), clientIp: clientIp, now: now)
        case let .secondFactorRequired(user, challenge):
            throw MultiFactorErrors.secondFactorRequired(user, session: challenge.id, expiresAt: challenge.expiresAt)
        case let .locked(until):
            throw MultiFactorErrors.factorLocked(until: until, now: now)
        case let .approvalNeeded(pending):
            return try finish(
                try approve(pending, clientIp: clientIp), first, now: clock.now(), clientIp: clientIp, explain: explain)
        }
    }

    /// Runs beforeCreate and beforeSignIn for a checked credential, with no transaction open,
    /// then completes the sign-in; again (at most maxJudgements times) if its number changed
    /// hands meanwhile. A refusal leaves the credential spent, as in Firebase.
    private func approve(_ pending: PendingSignIn, clientIp: ClientAddress?) throws -> AccountOutcome {
        var pending = pending
        for _ in 1...Self.maxJudgements {
            let verdict: HookVerdict
            do { verdict = try hooks.judge(pending, client: clientIp) } catch let error as PhoneAuthError {
                throw failures.reported(error, clientIp: clientIp, now: clock.now())
            }
            let outcome = try store.completeSignIn(pending, verdict: verdict, now: clock.now())
            guard case let .approvalNeeded(next) = outcome else { return outcome }
            pending = next
        }
        throw PhoneAuthError(
            .internalError, "The phone number changed hands while the sign-in hooks ran; sign in again.",
            details: [("reason", .string("numberChangedHands"))])
    }

    /// The tokens of `session`, told to the log sink (`retried`: the session was opened by an
    /// earlier call, and is handed out again).
    private func signedIn(
        _ session: SessionInfo, _ refreshToken: RefreshToken, isNew: Bool, retried: Bool, now: Timestamp,
        clientIp: ClientAddress?
    ) throws -> SignInResult {
        let result = SignInResult(
            user: session.user, idToken: try tokens.issue(for: session, now: now), refreshToken: refreshToken.text,
            expiresIn: config.idTokenTtlSeconds, isNewUser: isNew, providerId: session.provider.rawValue)
        events.emit(
            .signInSucceeded, at: now,
            [
                ("uid", .string(session.user.uid)),
                ("phoneNumber", session.user.phoneNumber.map { .string(PhoneNumber.mask($0)) }),
                ("provider", .string(session.provider.rawValue)),
                ("secondFactor", session.secondFactor.map { .string($0.rawValue) }),
                ("isNewUser", .bool(isNew)), ("clientIp", clientIp.map { .string($0.text) }),
                ("retried", retried ? .bool(true) : nil),
            ])
        return result
    }

    /// The refresh token of `session` at `generation` whose secret the store kept sealed.
    private func storedToken(of session: SessionInfo, generation: Int64, sealedSecret: [UInt8]) throws -> RefreshToken {
        guard let secret = keys.openRefreshSecret(sealedSecret, sessionId: session.sessionId, generation: generation)
        else { throw PhoneAuthError(.internalError, "A stored refresh secret could not be opened.") }
        return RefreshToken(uid: session.user.uid, sessionId: session.sessionId, generation: generation, secret: secret)
    }

    /// The session must be of the tenant the caller names, if it names one (securetoken's refresh
    /// names none): another tenant's token is as unknown as a forged one.
    package func refreshIdToken(_ refreshToken: String, for caller: Caller) throws -> SignInResult {
        guard let token = RefreshToken.parse(refreshToken) else {
            throw PhoneAuthError(
                .invalidUserToken, "The refresh token is not valid.", details: [("reason", .string("unknown"))])
        }
        let now = clock.now()
        let next = RefreshToken.issue(uid: token.uid, sessionId: token.sessionId, generation: token.generation + 1)
        let presented = token.secretHash
        let reuse = config.refreshReuseIntervalSeconds * 1000
        switch try store.rotateRefreshToken(
            token, secretMatches: { SecureBytes.equal($0, presented) },
            next: (next.secretHash, reuse > 0 ? try keys.sealRefreshSecret(next) : nil),
            reuseMilliseconds: reuse, for: caller, now: now)
        {
        case let .rotated(session):
            let idToken = try tokens.issue(for: session, now: now)
            return SignInResult(
                user: session.user, idToken: idToken, refreshToken: next.text, expiresIn: config.idTokenTtlSeconds,
                isNewUser: false, providerId: session.provider.rawValue)
        case let .reissued(session, generation, sealed):
            let current = try storedToken(of: session, generation: generation, sealedSecret: sealed)
            return SignInResult(
                user: session.user, idToken: try tokens.issue(for: session, now: now), refreshToken: current.text,
                expiresIn: config.idTokenTtlSeconds, isNewUser: false,
                providerId: session.provider.rawValue)
        case .unknown:
            throw PhoneAuthError(
                .invalidUserToken, "The refresh token is not valid.", details: [("reason", .string("unknown"))])
        case .userDisabled:
            throw AccountErrors.disabledUser
        case let .revoked(reason, userDisabled):
            // Disabling a user ends its sessions with this reason; while the user is still disabled, say so.
            if reason == .userDisabled, userDisabled { throw AccountErrors.disabledUser }
            let messages: [RevocationReason: String] = [
                .signedOut: "The session was signed out.",
                .reused: "The refresh token was already used; the session has been ended because the token may have "
                    + "been stolen.",
                .revoked: "The user's sessions were revoked.",
                .userDisabled: "The session ended when the user was disabled.",
            ]
            throw PhoneAuthError(
                .invalidUserToken, messages[reason] ?? "The session has ended.",
                details: [("reason", .string(reason.rawValue))])
        }
    }

    /// The token must be of the tenant the caller names, if it names one.
    package func verifyIdToken(_ idToken: String, checkRevoked: Bool, for caller: Caller) throws -> JSONValue {
        let claims = try tokens.verify(idToken, now: clock.now(), for: caller)
        if checkRevoked {
            guard let uid = claims["sub"]?.stringValue,
                let user = try store.user(.uid(uid), tenant: IDTokens.tenant(of: claims))
            else {
                throw PhoneAuthError(.userNotFound, "The token's user no longer exists.")
            }
            if user.disabled { throw AccountErrors.disabledUser }
            // Second granularity, as in Firebase: a token from the same second as a revocation counts as revoked.
            if let validSince = user.validSince, let authTime = claims["auth_time"]?.intValue,
                authTime * 1000 < validSince.milliseconds || authTime == validSince.seconds
            {
                throw PhoneAuthError(
                    .idTokenRevoked, "The ID token was issued before the user's sessions were revoked.")
            }
        }
        return claims
    }

    package func signOut(refreshToken: String, for caller: Caller) throws {
        // Signing out with a token that is not a session's current one (of the pool) changes nothing.
        guard let token = RefreshToken.parse(refreshToken) else { return }
        let presented = token.secretHash
        try store.signOut(token, secretMatches: { SecureBytes.equal($0, presented) }, for: caller, now: clock.now())
    }

    /// Ends every session of the user `uid` of the caller's pool.
    package func revokeRefreshTokens(uid: String, for caller: Caller) throws {
        let pool = try tenants.pool(for: caller)
        guard try store.revokeSessions(uid: uid, in: pool, now: clock.now()) else { throw AccountErrors.noUser }
    }

    /// The live sessions of the user `uid` of the caller's pool, newest first (sessions have no
    /// expiry of their own: they last until signed out, revoked or reused).
    package func liveSessions(uid: String, for caller: Caller) throws -> [ListedSession] {
        let pool = try tenants.pool(for: caller)
        guard let sessions = try store.liveSessions(uid: uid, tenant: pool.tenant) else { throw AccountErrors.noUser }
        return sessions
    }

}
