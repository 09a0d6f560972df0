/// Accounts: reading, creating, changing, listing and deleting users (an admin's), and the
/// changes a signed-in user proves with a code: linking, changing and removing the number, and
/// re-authenticating.
package final class AccountService {
    private let config: EngineConfig
    private let clock: Clock
    private let store: any AccountStore
    private let keys: KeyRing
    private let sessions: SessionService
    private let verification: VerificationService
    let tenants: TenantService
    private let failures: FailureReporter

    init(
        config: EngineConfig, clock: Clock, store: any AccountStore, keys: KeyRing, sessions: SessionService,
        verification: VerificationService, tenants: TenantService, failures: FailureReporter
    ) {
        self.tenants = tenants
        self.config = config
        self.clock = clock
        self.store = store
        self.keys = keys
        self.sessions = sessions
        self.verification = verification
        self.failures = failures
    }

    /// The user `uid` of the caller's pool: another tenant's user is as unknown as one that never was.
    package func user(uid: String, for caller: Caller) throws -> UserRecord {
        let pool = try tenants.pool(for: caller)
        guard let user = try store.user(.uid(uid), tenant: pool.tenant) else { throw AccountErrors.noUser }
        return user
    }

    package func user(phoneNumber: String, for caller: Caller) throws -> UserRecord {
        let pool = try tenants.pool(for: caller)
        let phone = try PhoneNumber.parse(phoneNumber)
        guard let user = try store.user(.phoneNumber(phone.e164), tenant: pool.tenant) else {
            throw AccountErrors.noUser
        }
        return user
    }

    package func deleteUser(uid: String, for caller: Caller) throws {
        let pool = try tenants.pool(for: caller)
        guard try store.deleteUser(uid: uid, in: pool, now: clock.now()) else { throw AccountErrors.noUser }
    }

    /// `phoneNumber` `.some(nil)` removes the number; a number another user has is refused.
    /// `customClaims` as setCustomUserClaims takes them; all changes are one transaction.
    package func updateUser(
        uid: String, for caller: Caller, disabled: Bool? = nil, displayName: Label?? = nil,
        phoneNumber: String?? = nil, customClaims: JSONValue?? = nil
    ) throws -> UserRecord {
        let pool = try tenants.pool(for: caller)
        var changes = UserChanges(disabled: disabled, displayName: displayName.map { $0?.text })
        if let claims = customClaims {
            changes.customClaims = .some(try claims.flatMap { try DeveloperClaims.validated($0) })
        }
        if let phoneNumber { changes.phoneNumber = .some(try phoneNumber.map { try PhoneNumber.parse($0).e164 }) }
        return try update(uid: uid, in: pool, changes)
    }

    /// Adds a user of the caller's pool that has not signed in yet (an admin's create): `uid`
    /// (1–128 bytes, unique across tenants) or a new sortable one; a phone number another user of
    /// the pool or a second factor there has is refused.
    package func createUser(
        uid: String?, for caller: Caller, disabled: Bool = false, displayName: Label? = nil,
        phoneNumber: String? = nil
    ) throws -> UserRecord {
        let pool = try tenants.pool(for: caller)
        let now = clock.now()
        let uid = uid ?? SortableID.make(at: now, randomBytes: 12)
        guard !uid.isEmpty, uid.utf8.count <= 128 else {
            throw PhoneAuthError(
                .invalidArgument, "The field 'uid' must be 1 to 128 bytes.", details: [("field", .string("uid"))])
        }
        var changes = UserChanges(disabled: disabled ? true : nil, displayName: displayName.map { .some($0.text) })
        if let phoneNumber { changes.phoneNumber = .some(try PhoneNumber.parse(phoneNumber).e164) }
        return try outcome(try store.createUser(uid: uid, in: pool, changes: changes, now: now))
    }

    /// Claims every later ID token of the user carries; nil or {} removes them.
    package func setCustomUserClaims(uid: String, for caller: Caller, claims: JSONValue?) throws {
        _ = try update(
            uid: uid, in: try tenants.pool(for: caller),
            UserChanges(customClaims: .some(try claims.flatMap { try DeveloperClaims.validated($0) })))
    }

    private func update(uid: String, in pool: Pool, _ changes: UserChanges) throws -> UserRecord {
        try outcome(try store.updateUser(uid: uid, in: pool, changes: changes, now: clock.now()))
    }

    private func outcome(_ outcome: UpdateUserOutcome) throws -> UserRecord {
        switch outcome {
        case let .updated(user): return user
        case .notFound: throw AccountErrors.noUser
        case .uidTaken:
            throw PhoneAuthError(
                .uidAlreadyExists, "A user with this uid already exists.", details: [("field", .string("uid"))])
        case .phoneNumberTaken:
            throw PhoneAuthError(
                .phoneNumberAlreadyExists, "Another user already has this phone number.",
                details: [("field", .string("phoneNumber"))])
        case .phoneIsSecondFactor:
            throw PhoneAuthError(
                .unsupportedFirstFactor,
                "This phone number is enrolled as an SMS second factor, so it cannot be a user's phone number.",
                details: [("field", .string("phoneNumber"))])
        }
    }

    /// One page of the users of the caller's pool in a stable order (by uid); `pageToken`
    /// continues after a page.
    package func listUsers(
        for caller: Caller, maxResults: Int, pageToken: String?
    ) throws -> (users: [UserRecord], nextPageToken: String?) {
        let pool = try tenants.pool(for: caller)
        let after = try Self.afterUid(pageToken, of: "listUsers")
        return Self.page(try store.listUsers(in: pool, afterUid: after, limit: maxResults), maxResults)
    }

    /// One page of the users of the caller's pool that `query` finds (see UserSearch), in uid
    /// order as `listUsers` pages them.
    package func searchUsers(
        query: String?, for caller: Caller, maxResults: Int, pageToken: String?
    ) throws -> (users: [UserRecord], nextPageToken: String?) {
        let search = try UserSearch(query)
        let pool = try tenants.pool(for: caller)
        let after = try Self.afterUid(pageToken, of: "searchUsers")
        return Self.page(try store.searchUsers(search, in: pool, afterUid: after, limit: maxResults), maxResults)
    }

    /// The uid a page token of `method` continues after (it is the last uid of its page).
    private static func afterUid(_ pageToken: String?, of method: String) throws -> String? {
        guard let pageToken else { return nil }
        guard let bytes = Base64URL.decode(pageToken), !bytes.isEmpty else {
            throw PhoneAuthError(
                .invalidArgument, "The page token is not one \(method) returned.",
                details: [("field", .string("pageToken"))])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A full page may have a next one, which starts after its last uid.
    private static func page(_ users: [UserRecord], _ maxResults: Int) -> ([UserRecord], String?) {
        (users, users.count == maxResults ? users.last.map { Base64URL.encode($0.uid.utf8) } : nil)
    }

    /// Adds the credential's phone number to the signed-in user (a recent sign-in is required: a
    /// stolen token must not add a permanent way in). If another user has it, the error
    /// credentialAlreadyInUse carries a temporary proof that signs in to that user instead.
    /// The tenant the caller names, if it names one, must be the token's user's.
    package func link(idToken: String, credential: PhoneCredential, for caller: Caller) throws -> SignInResult {
        try changeNumber(idToken: idToken, credential: credential, for: caller, AccountChange.link)
    }

    /// Replaces the signed-in user's phone number with the credential's (a recent sign-in is
    /// required); a number another user has is refused as `link` refuses it, with a proof.
    package func updatePhoneNumber(
        idToken: String, credential: PhoneCredential, for caller: Caller
    ) throws -> SignInResult {
        try changeNumber(idToken: idToken, credential: credential, for: caller, AccountChange.updatePhoneNumber)
    }

    /// Link or number change: the code is checked and applied in one transaction. If another
    /// user has the number, the code is consumed and becomes a temporary proof, returned in
    /// credentialAlreadyInUse's details with the number the code proved (Firebase's clients keep
    /// both).
    private func changeNumber(
        idToken: String, credential: PhoneCredential, for caller: Caller,
        _ change: (_ proof: TemporaryProof) -> AccountChange
    ) throws -> SignInResult {
        try VerificationService.checkCredential(credential)
        let session = try sessions.session(of: idToken, recent: true, for: caller)
        let pool = try tenants.pool(of: session.user)
        let now = clock.now()
        let (continued, first) = try sessions.continuation(of: session, provider: .phone, now: now)
        let signIn = try sessions.retryable(continued, first, now: now)
        let secret = Base64URL.encode(SecureBytes.random(count: 32))
        let proofId = VerificationCode.newVerificationId(at: now)
        let proof = TemporaryProof(
            verificationId: proofId, codeHash: keys.codeHash(verificationId: proofId, code: secret),
            expiresAt: now.adding(seconds: config.temporaryProofTtlSeconds))
        let outcome = try store.redeemForAccount(
            id: credential.verificationId, uid: session.user.uid, presentedSession: session.sessionId,
            change: change(proof), now: now, maxAttempts: config.maxAttempts,
            limits: verification.checkLimits(for: caller, in: pool), codeMatches: verification.codeMatcher(credential),
            signIn: signIn)
        return try sessions.finish(outcome, first, now: now, clientIp: caller.address) { outcome in
            guard case let .refused(.credentialAlreadyInUse(phone)) = outcome else { return nil }
            return PhoneAuthError(
                .credentialAlreadyInUse,
                "Another account already has this phone number; details.temporaryProof signs in to that account "
                    + "(signInWithCredential).",
                details: [
                    ("temporaryProof", .string(proofId + "." + secret)),
                    ("expiresAt", .string(proof.expiresAt.rfc3339)),
                    ("phoneNumber", .string(phone)),
                ])
        }
    }

    /// Proves the signed-in user's phone number again: a new session whose auth_time is now (after
    /// the second factor, if the user has any).
    package func reauthenticate(
        idToken: String, credential: PhoneCredential, for caller: Caller
    ) throws -> SignInResult {
        try VerificationService.checkCredential(credential)
        let session = try sessions.session(of: idToken, recent: false, for: caller)
        let pool = try tenants.pool(of: session.user)
        let now = clock.now()
        let (made, first) = sessions.newSignIn(uid: session.user.uid, in: pool, provider: .phone, now: now)
        let signIn = try sessions.retryable(made, first, now: now)
        return try sessions.finish(
            try store.redeemForAccount(
                id: credential.verificationId, uid: session.user.uid, presentedSession: session.sessionId,
                change: .reauthenticate, now: now,
                maxAttempts: config.maxAttempts, limits: verification.checkLimits(for: caller, in: pool),
                codeMatches: verification.codeMatcher(credential), signIn: signIn),
            first, now: now, clientIp: caller.address)
    }

    /// Removes the phone number from the signed-in user (a recent sign-in is required: a stolen
    /// token must not lock the owner out). The user's sessions continue.
    package func unlink(idToken: String, providerId: String, for caller: Caller) throws -> UserRecord {
        let session = try sessions.session(of: idToken, recent: true, for: caller)
        guard providerId == "phone" else {
            throw PhoneAuthError(
                .noSuchProvider, "PhoneAuth accounts have one linkable provider, \"phone\".",
                details: [("field", .string("providerId"))])
        }
        return try user(
            from: try store.unlinkPhone(uid: session.user.uid, presentedSession: session.sessionId, now: clock.now()))
    }

    /// The user of an outcome that opens no session, or the error it stands for.
    func user(from outcome: AccountOutcome) throws -> UserRecord {
        switch outcome {
        case let .done(user): return user
        case let .signedIn(session, _), let .resumed(session, _, _): return session.user
        case let .rejected(rejection): throw failures.rejected(rejection, clientIp: nil, now: clock.now())
        case let .refused(refusal): throw AccountErrors.error(refusal)
        case let .secondFactorRequired(user, _):
            throw PhoneAuthError(.internalError, "Unexpected challenge for user \(user.uid).")
        case let .approvalNeeded(pending):
            throw PhoneAuthError(.internalError, "Unexpected sign-in of user \(pending.user.uid).")
        case let .locked(until): throw MultiFactorErrors.factorLocked(until: until, now: clock.now())
        }
    }
}
