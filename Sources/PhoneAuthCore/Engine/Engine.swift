import Glibc

/// The engine: verifies phone numbers by SMS, signs users in and issues tokens. Thread-safe; all
/// state lives in the store, so several engines (in one process or several) can share it.
public final class Engine: @unchecked Sendable {
    public let config: EngineConfig
    private let clock: Clock
    private let store: Store
    private let keys: KeyRing
    private let tokens: IDTokens
    private let customTokens: CustomTokens
    private let worker: DeliveryWorker
    private let closeLock = Lock()
    private var closed = false

    public init(config: EngineConfig, clock: Clock = SystemClock()) throws {
        self.config = config
        self.clock = clock
        let master = try MasterKey.resolve(configured: config.masterKey, database: config.database)
        let store = try SQLiteStore(path: config.database, synchronous: config.sqliteSynchronous)
        do {
            keys = try KeyRing(store: store, masterKey: master, algorithm: config.signingAlgorithm, now: clock.now())
        } catch {
            store.close()
            throw error
        }
        self.store = store
        tokens = IDTokens(keys: keys, issuer: config.effectiveIssuer, audience: config.projectId, lifetimeSeconds: config.idTokenTtlSeconds)
        customTokens = CustomTokens(keys: keys, issuer: config.effectiveIssuer, projectId: config.projectId)
        worker = DeliveryWorker(store: store, keys: keys, clock: clock, maxAttempts: config.smsMaxAttempts, backoffMs: config.smsRetryBackoffMs)
        if config.smsProvider == .console { worker.setSender(ConsoleSender()) }
        do { try worker.start() } catch { store.close(); throw error }
    }

    /// Stops delivery and closes the store. Safe to call more than once.
    public func close() {
        let first = closeLock.withLock { () -> Bool in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        worker.stop()
        store.close()
    }

    deinit { close() }

    /// The sender for the `callback` provider; nil removes it. Ignored for other providers.
    public func setSMSSender(_ sender: SMSSender?) {
        if config.smsProvider == .callback { worker.setSender(sender) }
    }

    // MARK: Verification

    public func verifyPhoneNumber(_ phoneNumber: String?, languageCode: String? = nil, clientIp: String? = nil) throws -> VerificationStarted {
        guard let phoneNumber, !phoneNumber.isEmpty else {
            throw PhoneAuthError(.missingPhoneNumber, "A phone number is required.")
        }
        let phone = try PhoneNumber.parse(phoneNumber)
        if let clientIp, !Self.isIPAddress(clientIp) {
            throw PhoneAuthError(.invalidArgument, "The field 'clientIp' must be an IPv4 or IPv6 address.", details: [("field", .string("clientIp"))])
        }
        let testCode = config.testPhoneNumbers[phone.e164]
        if config.appVerificationDisabledForTesting && testCode == nil {
            throw PhoneAuthError(.appNotVerified,
                                 "App verification is disabled for testing (appVerification.disabledForTesting), so only the configured test phone numbers are accepted.",
                                 details: [("setting", .string("appVerification.disabledForTesting"))])
        }
        let now = clock.now()
        let id = VerificationCode.newVerificationId(at: now)
        let code = testCode ?? VerificationCode.generate(length: config.codeLength)
        let language = SMSTemplates.resolve(languageCode, fallback: config.defaultLanguageCode)
        var outbox: NewOutboxMessage?
        if testCode == nil {
            let body = SMSTemplates.body(language: language, code: code)
            outbox = NewOutboxMessage(languageCode: language, sealedBody: try keys.sealBody(body, verificationId: id))
        }
        let verification = NewVerification(id: id, phone: phone.e164, codeHash: keys.codeHash(verificationId: id, code: code),
                                           createdAt: now, expiresAt: now.adding(seconds: config.codeTtlSeconds), outbox: outbox)
        let reuseWindowStart = config.resendAfterSeconds > 0 ? now.adding(seconds: -config.resendAfterSeconds) : nil
        let start = try store.startVerification(verification, reuseIfCreatedAfter: reuseWindowStart,
                                                leaseUntil: now.adding(milliseconds: DeliveryWorker.leaseMilliseconds))
        switch start {
        case .created:
            if let outbox {
                worker.enqueue(OutboxMessage(verificationId: id, phone: phone.e164, languageCode: outbox.languageCode,
                                             sealedBody: outbox.sealedBody, attempts: 0))
            }
            return VerificationStarted(verificationId: id, codeLength: testCode?.count ?? config.codeLength,
                                       expiresAt: verification.expiresAt, resendAt: now.adding(seconds: config.resendAfterSeconds))
        case let .blocked(since):
            let retryAt = since.adding(seconds: config.resendAfterSeconds)
            throw PhoneAuthError(.tooManyRequests, "Too many wrong codes were tried for this number; a new code can be sent at \(retryAt.rfc3339).",
                                 details: [("reason", .string("tooManyAttempts")),
                                           ("retryAfterSeconds", .int(max(1, (retryAt.milliseconds - now.milliseconds + 999) / 1000)))])
        case let .reused(existingId, createdAt, expiresAt):
            return VerificationStarted(verificationId: existingId, codeLength: testCode?.count ?? config.codeLength,
                                       expiresAt: expiresAt, resendAt: createdAt.adding(seconds: config.resendAfterSeconds))
        }
    }

    /// Checks a credential's shape without touching the store.
    public static func credential(verificationId: String?, verificationCode: String?) throws -> PhoneCredential {
        guard let verificationId, !verificationId.isEmpty else {
            throw PhoneAuthError(.missingVerificationID, "A verification ID is required.")
        }
        guard let verificationCode, !verificationCode.isEmpty else {
            throw PhoneAuthError(.missingVerificationCode, "A verification code is required.")
        }
        return PhoneCredential(verificationId: verificationId, verificationCode: verificationCode)
    }

    public func verificationStatus(_ verificationId: String) throws -> VerificationStatus {
        guard VerificationCode.isWellFormedId(verificationId),
              let status = try store.verificationStatus(id: verificationId, now: clock.now()) else {
            throw PhoneAuthError(.invalidVerificationID, "No verification has this ID.")
        }
        return status
    }

    // MARK: Sign-in

    public func signIn(with credential: PhoneCredential) throws -> SignInResult {
        guard VerificationCode.isWellFormedId(credential.verificationId) else {
            throw PhoneAuthError(.invalidVerificationID, "The verification ID is malformed.", details: [("reason", .string("malformed"))])
        }
        let now = clock.now()
        let code = credential.verificationCode
        let expected = keys.codeHash(verificationId: credential.verificationId, code: code)
        // The uid is settled inside the transaction (new or existing user); the token names it after.
        let firstToken = RefreshToken.issue(uid: "", sessionId: RefreshToken.newSessionId(), generation: 0)
        // 28 characters like Firebase's uids: creation time and 96 random bits.
        let signIn = NewSignIn(newUid: SortableID.make(at: now, randomBytes: 12),
                               sessionId: firstToken.sessionId, refreshSecretHash: firstToken.secretHash)
        let outcome = try store.redeemVerification(id: credential.verificationId, now: now, maxAttempts: config.maxAttempts,
                                                   codeMatches: { SecureBytes.equal($0, expected) }, signIn: signIn)
        switch outcome {
        case let .signedIn(user, isNew):
            let idToken = try tokens.issue(for: user, authTime: now, now: now)
            let refreshToken = RefreshToken(uid: user.uid, sessionId: firstToken.sessionId, generation: 0, secret: firstToken.secret)
            return SignInResult(user: user, idToken: idToken, refreshToken: refreshToken.text,
                                expiresIn: config.idTokenTtlSeconds, isNewUser: isNew)
        case let .wrongCode(left):
            let message = left == 0 ? "The verification code is not correct, and no tries are left: request a new code."
                                    : "The verification code is not correct."
            throw PhoneAuthError(.invalidVerificationCode, message, details: [("attemptsLeft", .int(Int64(left)))])
        case let .unusable(reason):
            let messages = [
                "expired": "The code has expired; request a new one.",
                "tooManyAttempts": "Too many wrong codes were tried; request a new code.",
                "alreadyUsed": "This code was already used; request a new one.",
                "replaced": "A newer code was sent to this number; use that one.",
            ]
            throw PhoneAuthError(.sessionExpired, messages[reason] ?? "The verification can no longer be used.", details: [("reason", .string(reason))])
        case .unknown:
            throw PhoneAuthError(.invalidVerificationID, "No verification has this ID.", details: [("reason", .string("unknown"))])
        case .userDisabled:
            throw Self.disabledUser
        }
    }

    // MARK: Custom tokens

    /// A token the host hands to its user to sign in as `uid` (created on first sign-in).
    public func createCustomToken(uid: String, claims: JSONValue?) throws -> String {
        try customTokens.create(uid: uid, claims: claims, now: clock.now())
    }

    public func signIn(withCustomToken token: String) throws -> SignInResult {
        let now = clock.now()
        let grant = try customTokens.verify(token, now: now)
        let first = RefreshToken.issue(uid: grant.uid, sessionId: RefreshToken.newSessionId(), generation: 0)
        let signIn = NewSignIn(newUid: grant.uid, sessionId: first.sessionId, refreshSecretHash: first.secretHash,
                               provider: "custom", developerClaims: grant.claims)
        switch try store.signInUser(signIn, now: now) {
        case let .signedIn(user, isNew):
            let idToken = try tokens.issue(for: user, authTime: now, now: now, provider: "custom", developerClaims: grant.claims)
            return SignInResult(user: user, idToken: idToken, refreshToken: first.text, expiresIn: config.idTokenTtlSeconds,
                                isNewUser: isNew, providerId: "custom")
        case .userDisabled:
            throw Self.disabledUser
        }
    }

    // MARK: Tokens

    public func refreshIdToken(_ refreshToken: String) throws -> SignInResult {
        guard let token = RefreshToken.parse(refreshToken) else {
            throw PhoneAuthError(.invalidUserToken, "The refresh token is not valid.", details: [("reason", .string("unknown"))])
        }
        let now = clock.now()
        let next = RefreshToken.issue(uid: token.uid, sessionId: token.sessionId, generation: token.generation + 1)
        let presented = token.secretHash
        switch try store.rotateRefreshToken(token, secretMatches: { SecureBytes.equal($0, presented) }, newSecretHash: next.secretHash, now: now) {
        case let .rotated(session):
            let idToken = try tokens.issue(for: session.user, authTime: session.authTime, now: now, provider: session.provider,
                                           developerClaims: session.developerClaims)
            return SignInResult(user: session.user, idToken: idToken, refreshToken: next.text, expiresIn: config.idTokenTtlSeconds,
                                isNewUser: false, providerId: session.provider)
        case .unknown:
            throw PhoneAuthError(.invalidUserToken, "The refresh token is not valid.", details: [("reason", .string("unknown"))])
        case .userDisabled:
            throw Self.disabledUser
        case let .revoked(reason):
            // Disabling a user ends its sessions with this reason; say what the caller can act on.
            if reason == "userDisabled" { throw Self.disabledUser }
            let messages = [
                "signedOut": "The session was signed out.",
                "reused": "The refresh token was already used; the session has been ended because the token may have been stolen.",
                "revoked": "The user's sessions were revoked.",
            ]
            throw PhoneAuthError(.invalidUserToken, messages[reason] ?? "The session has ended.", details: [("reason", .string(reason))])
        }
    }

    public func verifyIdToken(_ idToken: String, checkRevoked: Bool) throws -> JSONValue {
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

    public func signOut(refreshToken: String) throws {
        // Signing out with a token that is not a session's current one changes nothing.
        guard let token = RefreshToken.parse(refreshToken) else { return }
        let presented = token.secretHash
        try store.signOut(token, secretMatches: { SecureBytes.equal($0, presented) }, now: clock.now())
    }

    public var jwks: JSONValue {
        .object([("keys", .array(keys.signingKeys.values.sorted { $0.kid < $1.kid }.map(\.publicJWK)))])
    }

    // MARK: Users

    public func user(uid: String) throws -> UserRecord {
        guard let user = try store.user(uid: uid) else { throw Self.noUser }
        return user
    }

    public func user(phoneNumber: String) throws -> UserRecord {
        let phone = try PhoneNumber.parse(phoneNumber)
        guard let user = try store.user(phoneNumber: phone.e164) else { throw Self.noUser }
        return user
    }

    public func deleteUser(uid: String) throws {
        guard try store.deleteUser(uid: uid) else { throw Self.noUser }
    }

    /// `phoneNumber` `.some(nil)` removes the number; a number another user has is refused.
    public func updateUser(uid: String, disabled: Bool? = nil, displayName: String?? = nil, phoneNumber: String?? = nil) throws -> UserRecord {
        var changes = UserChanges(disabled: disabled, displayName: displayName)
        if let phoneNumber { changes.phoneNumber = .some(try phoneNumber.map { try PhoneNumber.parse($0).e164 }) }
        return try update(uid: uid, changes)
    }

    /// Claims every later ID token of the user carries; nil or {} removes them.
    public func setCustomUserClaims(uid: String, claims: JSONValue?) throws {
        _ = try update(uid: uid, UserChanges(customClaims: .some(try claims.flatMap { try DeveloperClaims.validated($0) })))
    }

    private func update(uid: String, _ changes: UserChanges) throws -> UserRecord {
        switch try store.updateUser(uid: uid, changes: changes, now: clock.now()) {
        case let .updated(user): return user
        case .notFound: throw Self.noUser
        case .phoneNumberTaken:
            throw PhoneAuthError(.phoneNumberAlreadyExists, "Another user already has this phone number.", details: [("field", .string("phoneNumber"))])
        }
    }

    /// One page of users in a stable order (by uid); `pageToken` continues after a page.
    public func listUsers(maxResults: Int, pageToken: String?) throws -> (users: [UserRecord], nextPageToken: String?) {
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

    public func revokeRefreshTokens(uid: String) throws {
        guard try store.revokeSessions(uid: uid, now: clock.now()) else { throw Self.noUser }
    }

    /// The per-IP limits key on this address, so it must be one.
    static func isIPAddress(_ text: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return text.utf8.count <= 45 && (inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1)
    }

    private static let noUser = PhoneAuthError(.userNotFound, "There is no user with this identifier.")
    private static let disabledUser = PhoneAuthError(.userDisabled, "The user account has been disabled.")

}
