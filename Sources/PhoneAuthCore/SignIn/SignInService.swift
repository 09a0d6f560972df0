/// Signing in: a first-factor code (or a temporary proof) or a custom token turned into a
/// session, the account made on its first sign-in.
package final class SignInService {
    private let config: EngineConfig
    private let clock: Clock
    private let store: any SignInStore
    private let verification: VerificationService
    private let sessions: SessionService
    private let customTokens: CustomTokens
    let tenants: TenantService
    private let failures: FailureReporter

    init(
        config: EngineConfig, clock: Clock, store: any SignInStore, verification: VerificationService,
        sessions: SessionService, customTokens: CustomTokens, tenants: TenantService, failures: FailureReporter
    ) {
        self.tenants = tenants
        self.config = config
        self.clock = clock
        self.store = store
        self.verification = verification
        self.sessions = sessions
        self.customTokens = customTokens
        self.failures = failures
    }

    /// Signs in to the caller's pool: a verification of another pool is as unknown as one never made.
    package func signIn(with credential: PhoneCredential, for caller: Caller) throws -> SignInResult {
        let pool = try tenants.pool(for: caller)
        let now = clock.now()
        do { try VerificationService.checkCredential(credential, allowProof: true) } catch let error as PhoneAuthError {
            throw failures.reported(error, clientIp: caller.address, now: now)
        }
        // 28 characters like Firebase's uids: creation time and 96 random bits (used if the user is new).
        let (made, first) = sessions.newSignIn(
            uid: SortableID.make(at: now, randomBytes: 12), in: pool, provider: .phone, now: now)
        let signIn = try sessions.retryable(made, first, now: now)
        let outcome = try store.redeemVerification(
            id: credential.verificationId, temporaryProof: credential.isTemporaryProof, now: now,
            maxAttempts: config.maxAttempts, limits: verification.checkLimits(for: caller, in: pool),
            codeMatches: verification.codeMatcher(credential), signIn: signIn,
            retrySince: signIn.retrySince)
        return try sessions.finish(outcome, first, now: now, clientIp: caller.address) { outcome in
            guard credential.isTemporaryProof, case let .rejected(rejection) = outcome else { return nil }
            switch rejection {
            case .limited, .numberLocked: return nil  // reported as for any code: the proof may work later
            case let .unusable(why):
                return PhoneAuthError(
                    .invalidCredential, "The temporary proof is expired or already used.",
                    details: [("reason", .string(why.rawValue))])
            case .wrongCode, .unknown:
                return PhoneAuthError(
                    .invalidCredential, "The temporary proof is unknown.", details: [("reason", .string("unknown"))])
            }
        }
    }

    /// A token the host hands to its user to sign in as `uid` of the caller's pool (created on
    /// first sign-in).
    package func createCustomToken(uid: String, claims: JSONValue?, for caller: Caller) throws -> String {
        try customTokens.create(uid: uid, claims: claims, in: try tenants.pool(for: caller), now: clock.now())
    }

    /// Signs in to the pool the token names, which must be the caller's (the default pool when it
    /// names none), as Identity Platform asks the request's tenantId to match.
    package func signIn(withCustomToken token: String, for caller: Caller) throws -> SignInResult {
        let now = clock.now()
        let grant: CustomTokens.Grant
        do { grant = try customTokens.verify(token, now: now) } catch {
            throw failures.reported(error, clientIp: caller.address, now: now)
        }
        let tenant = caller.pool
        guard grant.tenant == tenant else {
            throw failures.reported(
                PhoneAuthError(
                    .tenantIdMismatch,
                    "The custom token is for \(grant.tenant), and the sign-in for \(tenant).",
                    details: [("tokenTenantId", .string(grant.tenant.text)), ("tenantId", .string(tenant.text))]),
                clientIp: caller.address, now: now)
        }
        let (signIn, first) = sessions.newSignIn(
            uid: grant.uid, in: try tenants.pool(for: caller), provider: .custom, now: now,
            developerClaims: grant.claims)

        return try sessions.finish(try store.signInUser(signIn, proved: nil, now: now), first, now: now)
    }
}
