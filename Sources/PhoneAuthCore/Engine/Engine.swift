import Glibc

/// The engine: verifies phone numbers by SMS, signs users in and issues tokens. Thread-safe; all
/// state lives in the store, so several engines (in one process or several) can share it.
package final class Engine: @unchecked Sendable {
    package let config: EngineConfig
    /// The SMS texts (templates, app name, autofill lines), checked at open.
    let smsText: SMSText
    let clock: Clock
    let store: Store
    let keys: KeyRing
    let tokens: IDTokens
    private let customTokens: CustomTokens
    let worker: DeliveryWorker
    private let retention: RetentionPurge
    let events = EventLog()
    let appHooks = AppVerificationHooks()
    private let closeLock = Lock()
    private var closed = false

    package init(config: EngineConfig, clock: Clock = SystemClock()) throws {
        self.config = config
        self.clock = clock
        // The texts are checked before anything is opened: a bad template never meets a store.
        smsText = try SMSText(appName: config.smsAppName, hostTemplates: config.smsTemplates,
                              originBoundDomain: config.smsOriginBoundDomain, androidAppHash: config.smsAndroidAppHash,
                              maxSegments: config.smsMaxSegments, codeLength: config.codeLength, codeTtlSeconds: config.codeTtlSeconds,
                              defaultLanguage: config.defaultLanguageCode)
        let database = Database(config)
        // A missing or malformed key is told before the store is touched, and a key file is
        // generated only once the store has opened: a mistyped path leaves nothing behind.
        let givenKey = try MasterKey.given(configured: config.masterKey, database: database)
        let store = try database.open()
        do {
            let keyFile = MasterKey.keyFile(configured: config.masterKey, database: database)
            guard let master = try givenKey ?? keyFile.map(MasterKey.fromKeyFile) else {
                throw PhoneAuthError(.internalError, "No master key and no key file.")
            }
            keys = try Self.keyRing(store: store, master: master, keyFile: keyFile, config: config, clock: clock)
        } catch {
            store.close()
            throw error
        }
        self.store = store
        tokens = IDTokens(keys: keys, issuer: config.effectiveIssuer, audience: config.projectId, lifetimeSeconds: config.idTokenTtlSeconds)
        customTokens = CustomTokens(keys: keys, issuer: config.effectiveIssuer, projectId: config.projectId)
        let providers = config.smsProviders
        worker = DeliveryWorker(store: store, keys: keys, clock: clock, events: events, maxAttempts: config.smsMaxAttempts,
                                backoffMs: config.smsRetryBackoffMs, concurrency: config.effectiveSMSConcurrency,
                                attemptMilliseconds: providers.reduce(0) { $0 + Int64($1.endpoint.timeoutMs) })
        retention = RetentionPurge(store: store, clock: clock)
        switch config.smsProvider {
        case .console: worker.setChain(ProviderChain(single: ConsoleSender(), name: "console", clock: clock, events: events))
        case .providers:
            let client = HTTPClient()
            worker.setChain(ProviderChain(providers.map { provider in
                ProviderChain.Member(name: provider.endpoint.name, sender: HTTPSender(provider, client: client, clock: clock),
                                     breaker: CircuitBreaker(threshold: config.smsBreakerFailures,
                                                             openMilliseconds: config.smsBreakerSeconds * 1000))
            }, clock: clock, events: events))
        case .callback: break
        }
        if let webhook = config.pushWebhook { appHooks.pushSender = WebhookPushSender(webhook: webhook, clock: clock) }
        do { try worker.start() } catch { store.close(); throw error }
        do {
            try retention.start()
        } catch {
            worker.stop()
            store.close()
            throw error
        }
    }

    /// Stops delivery and closes the store. Safe to call more than once.
    /// Opens the key ring, finishing a rekey that was interrupted: one that committed but had not
    /// yet renamed `<key file>.new` into place opens with the new key, which then takes its place;
    /// one that never committed leaves a `.new` file that is removed.
    private static func keyRing(store: Store, master: [UInt8], keyFile: String?, config: EngineConfig, clock: Clock) throws -> KeyRing {
        func open(_ key: [UInt8]) throws -> KeyRing {
            try KeyRing(store: store, masterKey: key, algorithm: config.signingAlgorithm, clock: clock,
                        idTokenTtlSeconds: config.idTokenTtlSeconds, rotationDays: config.signingKeyRotationDays)
        }
        guard let keyFile, let pending = try MasterKey.readKeyFile(keyFile + ".new") else { return try open(master) }
        do {
            let ring = try open(master)
            Glibc.unlink(keyFile + ".new")
            return ring
        } catch let error as PhoneAuthError where error.code == .invalidConfiguration {
            let ring = try open(pending)
            guard rename(keyFile + ".new", keyFile) == 0 else {
                throw PhoneAuthError(.storageError, "The rekeyed master key \(keyFile).new cannot be moved into place.", details: [("path", .string(keyFile))])
            }
            return ring
        }
    }

    /// Seals every secret of the store under `newMasterKey` (64 hex digits or base64 of 32 bytes)
    /// in one transaction. With a key file, the new key is written beside it first and replaces it
    /// once the store is rekeyed; otherwise the caller must give the new key to every engine
    /// (configuration or environment) before they open the store again. Other engines on the
    /// store must be stopped first: they would keep sealing with the old key.
    package func rekey(newMasterKey: String) throws -> String? {
        let key: [UInt8]
        do { key = try MasterKey.decode(newMasterKey, source: "field 'newMasterKey'") } catch {
            throw PhoneAuthError(.invalidArgument, error.message, details: [("field", .string("newMasterKey"))])
        }
        let keyFile = MasterKey.keyFile(configured: config.masterKey, database: Database(config))
        if let keyFile { try MasterKey.writeKeyFile(keyFile + ".new", key: key) }
        do {
            try keys.rekey(to: key)
        } catch {
            if let keyFile { Glibc.unlink(keyFile + ".new") }
            throw error
        }
        if let keyFile, rename(keyFile + ".new", keyFile) != 0 {
            throw PhoneAuthError(.storageError, "The store is rekeyed but \(keyFile).new could not replace the key file; move it into place.",
                                 details: [("path", .string(keyFile))])
        }
        events.emit(.rekeyed, at: clock.now(), [("keyFile", keyFile.map { .string($0) })])
        return keyFile
    }

    package func close() {
        let first = closeLock.withLock { () -> Bool in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        retention.stop()
        worker.stop()
        store.close()
    }

    deinit { close() }

    /// The sender for the `callback` provider; nil removes it. Ignored for other providers.
    package func setSMSSender(_ sender: SMSSender?) {
        guard config.smsProvider == .callback else { return }
        worker.setChain(sender.map { ProviderChain(single: $0, name: "callback", clock: clock, events: events) })
    }

    /// What the store has done since the engine opened (statements, transactions, retries).
    package func storageStatistics() -> StoreStatistics { store.statistics() }

    /// Where events go (sends, deliveries, sign-ins, limits, lockouts); nil stops them.
    package func setEventSink(_ sink: EventSink?) { events.setSink(sink) }

    // MARK: Verification

    package func verifyPhoneNumber(_ phoneNumber: String?, languageCode: LanguageTag? = nil, clientIp: ClientAddress? = nil,
                                  appProof: AppProof? = nil) throws -> VerificationStarted {
        try sendCode(to: try PhoneNumber.parse(phoneNumber), purpose: .signIn, subject: nil, languageCode: languageCode,
                            clientIp: clientIp, appProof: appProof)
    }

    /// Starts a verification of `phone` whose code serves `purpose` only, and queues its SMS.
    func sendCode(to phone: PhoneNumber, purpose: VerificationPurpose, subject: String?, languageCode: LanguageTag?,
                  clientIp: ClientAddress?, appProof: AppProof?) throws -> VerificationStarted {
        let policy = config.abuse
        // Where an SMS may go at all: checked for test numbers too, so tests meet the production rules.
        if !policy.deniedTypes.isEmpty, case let type = phone.type, policy.deniedTypes.contains(type) {
            throw PhoneAuthError(.invalidPhoneNumber, "SMS codes are not sent to \(type.name) numbers (phoneNumberTypes.deny).",
                                 details: [("reason", .string("typeNotAllowed")), ("type", .string(type.name))])
        }
        guard policy.allowsRegion(phone.region) else {
            throw PhoneAuthError(.operationNotAllowed, "SMS codes are not sent to numbers of region \(phone.region) (smsRegionPolicy).",
                                 details: [("reason", .string("regionNotAllowed")), ("region", .string(phone.region))])
        }
        let testCode = config.testPhoneNumbers[phone.e164]
        if config.appVerificationDisabledForTesting && testCode == nil {
            throw PhoneAuthError(.appNotVerified,
                                 "App verification is disabled for testing (appVerification.disabledForTesting), so only the configured test phone numbers are accepted.",
                                 details: [("setting", .string("appVerification.disabledForTesting"))])
        }
        try checkAppProof(appProof, clientIp: clientIp)
        let now = clock.now()
        let id = VerificationCode.newVerificationId(at: now)
        let code = testCode ?? VerificationCode.generate(length: config.codeLength)
        let language = smsText.resolve(languageCode?.text, fallback: config.defaultLanguageCode)
        var outbox: NewOutboxMessage?
        if testCode == nil {
            let body = smsText.body(language: language, code: code, minutes: SMSText.minutes(config.codeTtlSeconds))
            outbox = NewOutboxMessage(languageCode: language, sealedBody: try keys.sealBody(body, verificationId: id))
        }
        let verification = NewVerification(id: id, phone: phone.e164, codeHash: keys.codeHash(verificationId: id, code: code),
                                           createdAt: now, expiresAt: now.adding(seconds: config.codeTtlSeconds), outbox: outbox,
                                           purpose: purpose, subject: subject)
        let reuseWindowStart = config.resendAfterSeconds > 0 ? now.adding(seconds: -config.resendAfterSeconds) : nil
        // Test numbers are exempt from the send limits (they send nothing).
        let limits = testCode != nil ? nil : SendLimits(
            region: phone.region, clientIp: clientIp?.limitKey, perNumberPerHour: policy.smsPerNumberPerHour, perIpPerHour: policy.smsPerIpPerHour,
            perProjectPerDay: policy.smsPerProjectPerDay, perRegionPerDay: policy.smsPerRegionPerDay[phone.region] ?? 0,
            regionBurstPerHour: policy.regionBurstPerHour)
        let start = try store.startVerification(verification, reuseIfCreatedAfter: reuseWindowStart,
                                                lease: worker.newLease(), limits: limits)
        switch start {
        case .created:
            if let outbox {
                worker.enqueue(OutboxMessage(verificationId: id, phone: phone.e164, languageCode: outbox.languageCode,
                                             sealedBody: outbox.sealedBody, attempts: 0, purpose: purpose,
                                             expiresAt: verification.expiresAt))
            }
            return VerificationStarted(verificationId: id, codeLength: testCode?.count ?? config.codeLength,
                                       expiresAt: verification.expiresAt, resendAt: now.adding(seconds: config.resendAfterSeconds))
        case let .blocked(since):
            let retryAt = since.adding(seconds: config.resendAfterSeconds)
            throw PhoneAuthError(.tooManyRequests, "Too many wrong codes were tried for this number; a new code can be sent at \(retryAt.rfc3339).",
                                 details: [("reason", .string("tooManyAttempts")),
                                           ("retryAfterSeconds", .int(max(1, (retryAt.milliseconds - now.milliseconds + 999) / 1000)))])
        case let .limited(trip):
            throw limitError(trip, now: now)
        case let .numberLocked(until):
            let retryAfter = max(1, (until.milliseconds - now.milliseconds + 999) / 1000)
            events.emit(.limitTripped, at: now, [("limit", .string(LimitName.maxConsecutiveFailures.rawValue)),
                                                 ("scope", .string(phone.masked)),
                                                 ("retryAfterSeconds", .int(retryAfter))])
            throw Self.numberLocked(until: until, now: now)
        case let .reused(existingId, createdAt, expiresAt):
            return VerificationStarted(verificationId: existingId, codeLength: testCode?.count ?? config.codeLength,
                                       expiresAt: expiresAt, resendAt: createdAt.adding(seconds: config.resendAfterSeconds))
        }
    }

    /// Checks a credential's shape without touching the store.
    package static func credential(verificationId: String?, verificationCode: String?) throws -> PhoneCredential {
        guard let verificationId, !verificationId.isEmpty else {
            throw PhoneAuthError(.missingVerificationID, "A verification ID is required.")
        }
        guard let verificationCode, !verificationCode.isEmpty else {
            throw PhoneAuthError(.missingVerificationCode, "A verification code is required.")
        }
        return PhoneCredential(verificationId: verificationId, verificationCode: verificationCode)
    }

    package func verificationStatus(_ verificationId: String) throws -> VerificationStatus {
        guard VerificationCode.isWellFormedId(verificationId),
              let status = try store.verificationStatus(id: verificationId, now: clock.now()) else {
            throw PhoneAuthError(.invalidVerificationID, "No verification has this ID.")
        }
        return status
    }

    // MARK: Sign-in

    package func signIn(with credential: PhoneCredential) throws -> SignInResult {
        let now = clock.now()
        do { try Self.checkCredential(credential, allowProof: true) } catch let error as PhoneAuthError {
            throw reported(error, clientIp: credential.clientIp, now: now)
        }
        // 28 characters like Firebase's uids: creation time and 96 random bits (used if the user is new).
        let (signIn, first) = newSignIn(uid: SortableID.make(at: now, randomBytes: 12), provider: .phone, now: now)
        let outcome = try store.redeemVerification(id: credential.verificationId, temporaryProof: credential.isTemporaryProof, now: now,
                                                   maxAttempts: config.maxAttempts, limits: checkLimits(credential),
                                                   codeMatches: codeMatcher(credential), signIn: signIn)
        if credential.isTemporaryProof, case let .rejected(rejection) = outcome {
            switch rejection {
            case .limited, .numberLocked: break  // reported as for any code: the proof may work later
            case let .unusable(why):
                throw reported(PhoneAuthError(.invalidCredential, "The temporary proof is expired or already used.",
                                              details: [("reason", .string(why.rawValue))]),
                               clientIp: credential.clientIp, now: now)
            case .wrongCode, .unknown:
                throw reported(PhoneAuthError(.invalidCredential, "The temporary proof is unknown.", details: [("reason", .string("unknown"))]),
                               clientIp: credential.clientIp, now: now)
            }
        }
        return try finish(outcome, signIn, first, now: now, clientIp: credential.clientIp)
    }

    /// Checks a credential's verification ID before any store access; a temporary proof is only
    /// accepted where `allowProof` (signing in).
    static func checkCredential(_ credential: PhoneCredential, allowProof: Bool = false) throws {
        if credential.isTemporaryProof && !allowProof {
            throw PhoneAuthError(.invalidCredential, "A temporary proof only signs in (signInWithCredential); use a code sent to the number here.",
                                 details: [("reason", .string("temporaryProof"))])
        }
        guard VerificationCode.isWellFormedId(credential.verificationId) else {
            throw PhoneAuthError(.invalidVerificationID, "The verification ID is malformed.", details: [("reason", .string("malformed"))])
        }
    }

    /// The wrong-code limits of a code check from the credential's client.
    func checkLimits(_ credential: PhoneCredential) -> CheckLimits {
        let policy = config.abuse
        return CheckLimits(maxConsecutiveFailures: policy.maxConsecutiveFailures, failuresBetweenLockouts: config.maxAttempts,
                           lockoutMilliseconds: policy.lockoutSeconds * 1000, maxLockoutMilliseconds: policy.maxLockoutSeconds * 1000,
                           clientIp: credential.clientIp?.limitKey, wrongCodesPerIpPer5Minutes: policy.wrongCodesPerIpPer5Minutes,
                           exempt: Set(config.testPhoneNumbers.keys))
    }

    /// Compares a stored code hash with the credential's, in constant time.
    func codeMatcher(_ credential: PhoneCredential) -> ([UInt8]) -> Bool {
        let expected = keys.codeHash(verificationId: credential.verificationId, code: credential.verificationCode)
        return { SecureBytes.equal($0, expected) }
    }

    /// A session to open for `uid` (the store may settle another uid, for an existing user) and its
    /// first refresh token. A user with second factors gets the challenge instead.
    func newSignIn(uid: String, provider: SignInProvider, now: Timestamp, developerClaims: String? = nil)
        -> (NewSignIn, RefreshToken) {
        let first = RefreshToken.issue(uid: uid, sessionId: RefreshToken.newSessionId(), generation: 0)
        let challenge = NewMFASession(id: SortableID.make(at: now, randomBytes: 18), kind: .signIn,
                                      expiresAt: now.adding(seconds: config.mfaSessionTtlSeconds))
        return (NewSignIn(newUid: uid, sessionId: first.sessionId, refreshSecretHash: first.secretHash, provider: provider,
                          developerClaims: developerClaims, challenge: challenge), first)
    }

    /// Turns a store outcome into tokens, or into the error it stands for.
    func finish(_ outcome: AccountOutcome, _ signIn: NewSignIn, _ first: RefreshToken, now: Timestamp, clientIp: ClientAddress? = nil) throws -> SignInResult {
        switch outcome {
        case let .signedIn(session, isNew):
            let refreshToken = RefreshToken(uid: session.user.uid, sessionId: session.sessionId, generation: 0, secret: first.secret)
            let result = SignInResult(user: session.user, idToken: try tokens.issue(for: session, now: now), refreshToken: refreshToken.text,
                                      expiresIn: config.idTokenTtlSeconds, isNewUser: isNew,
                                      providerId: session.provider.rawValue)
            events.emit(.signInSucceeded, at: now, [
                ("uid", .string(session.user.uid)), ("phoneNumber", session.user.phoneNumber.map { .string(PhoneNumber.mask($0)) }),
                ("provider", .string(session.provider.rawValue)),
                ("secondFactor", session.secondFactor.map { .string($0.rawValue) }),
                ("isNewUser", .bool(isNew)), ("clientIp", clientIp.map { .string($0.text) }),
            ])
            return result
        case let .done(user):
            throw PhoneAuthError(.internalError, "No session was opened for user \(user.uid).")
        case let .rejected(rejection):
            throw rejected(rejection, clientIp: clientIp, now: now)
        case let .refused(refusal):
            throw reported(Self.error(refusal), clientIp: clientIp, now: now)
        case let .secondFactorRequired(user):
            throw MultiFactorErrors.secondFactorRequired(user, session: signIn.challenge?.id ?? "",
                                                         expiresAt: signIn.challenge?.expiresAt ?? now)
        case let .locked(until):
            throw MultiFactorErrors.factorLocked(until: until, now: now)
        }
    }

    // MARK: Custom tokens

    /// A token the host hands to its user to sign in as `uid` (created on first sign-in).
    package func createCustomToken(uid: String, claims: JSONValue?) throws -> String {
        try customTokens.create(uid: uid, claims: claims, now: clock.now())
    }

    package func signIn(withCustomToken token: String) throws -> SignInResult {
        let now = clock.now()
        let grant: CustomTokens.Grant
        do { grant = try customTokens.verify(token, now: now) } catch { throw reported(error, clientIp: nil, now: now) }
        let (signIn, first) = newSignIn(uid: grant.uid, provider: .custom, now: now, developerClaims: grant.claims)
        return try finish(try store.signInUser(signIn, now: now), signIn, first, now: now)
    }

    // MARK: Tokens

    package func refreshIdToken(_ refreshToken: String) throws -> SignInResult {
        guard let token = RefreshToken.parse(refreshToken) else {
            throw PhoneAuthError(.invalidUserToken, "The refresh token is not valid.", details: [("reason", .string("unknown"))])
        }
        let now = clock.now()
        let next = RefreshToken.issue(uid: token.uid, sessionId: token.sessionId, generation: token.generation + 1)
        let presented = token.secretHash
        let reuse = config.refreshReuseIntervalSeconds * 1000
        switch try store.rotateRefreshToken(token, secretMatches: { SecureBytes.equal($0, presented) },
                                            next: (next.secretHash, reuse > 0 ? try keys.sealRefreshSecret(next) : nil),
                                            reuseMilliseconds: reuse, now: now) {
        case let .rotated(session):
            let idToken = try tokens.issue(for: session, now: now)
            return SignInResult(user: session.user, idToken: idToken, refreshToken: next.text, expiresIn: config.idTokenTtlSeconds,
                                isNewUser: false, providerId: session.provider.rawValue)
        case let .reissued(session, generation, sealed):
            guard let secret = keys.openRefreshSecret(sealed, sessionId: token.sessionId, generation: generation) else {
                throw PhoneAuthError(.internalError, "A stored refresh secret could not be opened.")
            }
            let current = RefreshToken(uid: token.uid, sessionId: token.sessionId, generation: generation, secret: secret)
            return SignInResult(user: session.user, idToken: try tokens.issue(for: session, now: now), refreshToken: current.text,
                                expiresIn: config.idTokenTtlSeconds, isNewUser: false,
                                providerId: session.provider.rawValue)
        case .unknown:
            throw PhoneAuthError(.invalidUserToken, "The refresh token is not valid.", details: [("reason", .string("unknown"))])
        case .userDisabled:
            throw Self.disabledUser
        case let .revoked(reason):
            // Disabling a user ends its sessions with this reason; while the user is still disabled, say so.
            if reason == .userDisabled, try store.user(uid: token.uid)?.disabled == true { throw Self.disabledUser }
            let messages: [RevocationReason: String] = [
                .signedOut: "The session was signed out.",
                .reused: "The refresh token was already used; the session has been ended because the token may have "
                    + "been stolen.",
                .revoked: "The user's sessions were revoked.",
                .userDisabled: "The session ended when the user was disabled.",
            ]
            throw PhoneAuthError(.invalidUserToken, messages[reason] ?? "The session has ended.",
                                 details: [("reason", .string(reason.rawValue))])
        }
    }

    package func verifyIdToken(_ idToken: String, checkRevoked: Bool) throws -> JSONValue {
        let claims = try tokens.verify(idToken, now: clock.now())
        if checkRevoked {
            guard let uid = claims["sub"]?.stringValue, let user = try store.user(uid: uid) else {
                throw PhoneAuthError(.userNotFound, "The token's user no longer exists.")
            }
            if user.disabled { throw Self.disabledUser }
            // Second granularity, as in Firebase: a token from the same second as a revocation counts as revoked.
            if let validSince = user.validSince, let authTime = claims["auth_time"]?.intValue,
               authTime * 1000 < validSince.milliseconds || authTime == validSince.seconds {
                throw PhoneAuthError(.idTokenRevoked, "The ID token was issued before the user's sessions were revoked.")
            }
        }
        return claims
    }

    package func signOut(refreshToken: String) throws {
        // Signing out with a token that is not a session's current one changes nothing.
        guard let token = RefreshToken.parse(refreshToken) else { return }
        let presented = token.secretHash
        try store.signOut(token, secretMatches: { SecureBytes.equal($0, presented) }, now: clock.now())
    }

    package var jwks: JSONValue {
        .object([("keys", .array(keys.publishedKeys.map(\.publicJWK)))])
    }

    // MARK: Users

    package func user(uid: String) throws -> UserRecord {
        guard let user = try store.user(uid: uid) else { throw Self.noUser }
        return user
    }

    /// Ends a number's lockout and its run of wrong codes (the remedy when an attacker keeps a
    /// victim's number locked); whether it had any. Reported as the event `numberUnlocked`.
    package func unlockPhoneNumber(_ phoneNumber: String?) throws -> Bool {
        let phone = try PhoneNumber.parse(phoneNumber)
        let unlocked = try store.unlockPhoneNumber(phone.e164)
        events.emit(.numberUnlocked, at: clock.now(), [("phoneNumber", .string(phone.masked)),
                                                       ("hadFailures", .bool(unlocked))])
        return unlocked
    }

    package func user(phoneNumber: String) throws -> UserRecord {
        let phone = try PhoneNumber.parse(phoneNumber)
        guard let user = try store.user(phoneNumber: phone.e164) else { throw Self.noUser }
        return user
    }

    package func deleteUser(uid: String) throws {
        guard try store.deleteUser(uid: uid) else { throw Self.noUser }
    }

    /// `phoneNumber` `.some(nil)` removes the number; a number another user has is refused.
    /// `customClaims` as setCustomUserClaims takes them; all changes are one transaction.
    package func updateUser(uid: String, disabled: Bool? = nil, displayName: Label?? = nil, phoneNumber: String?? = nil,
                           customClaims: JSONValue?? = nil) throws -> UserRecord {
        var changes = UserChanges(disabled: disabled, displayName: displayName.map { $0?.text })
        if let claims = customClaims { changes.customClaims = .some(try claims.flatMap { try DeveloperClaims.validated($0) }) }
        if let phoneNumber { changes.phoneNumber = .some(try phoneNumber.map { try PhoneNumber.parse($0).e164 }) }
        return try update(uid: uid, changes)
    }

    /// Adds a user that has not signed in yet (an admin's create): `uid` (1–128 bytes) or a new
    /// sortable one; a phone number another user or a second factor has is refused.
    package func createUser(uid: String?, disabled: Bool = false, displayName: Label? = nil,
                           phoneNumber: String? = nil) throws -> UserRecord {
        let now = clock.now()
        let uid = uid ?? SortableID.make(at: now, randomBytes: 12)
        guard !uid.isEmpty, uid.utf8.count <= 128 else {
            throw PhoneAuthError(.invalidArgument, "The field 'uid' must be 1 to 128 bytes.", details: [("field", .string("uid"))])
        }
        var changes = UserChanges(disabled: disabled ? true : nil, displayName: displayName.map { .some($0.text) })
        if let phoneNumber { changes.phoneNumber = .some(try PhoneNumber.parse(phoneNumber).e164) }
        return try outcome(try store.createUser(uid: uid, changes: changes, now: now))
    }

    /// Claims every later ID token of the user carries; nil or {} removes them.
    package func setCustomUserClaims(uid: String, claims: JSONValue?) throws {
        _ = try update(uid: uid, UserChanges(customClaims: .some(try claims.flatMap { try DeveloperClaims.validated($0) })))
    }

    private func update(uid: String, _ changes: UserChanges) throws -> UserRecord {
        try outcome(try store.updateUser(uid: uid, changes: changes, now: clock.now()))
    }

    private func outcome(_ outcome: UpdateUserOutcome) throws -> UserRecord {
        switch outcome {
        case let .updated(user): return user
        case .notFound: throw Self.noUser
        case .uidTaken: throw PhoneAuthError(.uidAlreadyExists, "A user with this uid already exists.", details: [("field", .string("uid"))])
        case .phoneNumberTaken:
            throw PhoneAuthError(.phoneNumberAlreadyExists, "Another user already has this phone number.", details: [("field", .string("phoneNumber"))])
        case .phoneIsSecondFactor:
            throw PhoneAuthError(.unsupportedFirstFactor, "This phone number is enrolled as an SMS second factor, so it cannot be a user's phone number.",
                                 details: [("field", .string("phoneNumber"))])
        }
    }

    /// One page of users in a stable order (by uid); `pageToken` continues after a page.
    package func listUsers(maxResults: Int, pageToken: String?) throws -> (users: [UserRecord], nextPageToken: String?) {
        var after: String?
        if let pageToken {
            guard let bytes = Base64URL.decode(pageToken), !bytes.isEmpty else {
                throw PhoneAuthError(.invalidArgument, "The page token is not one listUsers returned.", details: [("field", .string("pageToken"))])
            }
            after = String(decoding: bytes, as: UTF8.self)
        }
        let users = try store.listUsers(afterUid: after, limit: maxResults)
        let next = users.count == maxResults ? users.last.map { Base64URL.encode($0.uid.utf8) } : nil
        return (users, next)
    }

    package func revokeRefreshTokens(uid: String) throws {
        guard try store.revokeSessions(uid: uid, now: clock.now()) else { throw Self.noUser }
    }

    static let noUser = PhoneAuthError(.userNotFound, "There is no user with this identifier.")
    static let disabledUser = PhoneAuthError(.userDisabled, "The user account has been disabled.")

}
