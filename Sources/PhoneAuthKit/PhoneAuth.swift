import Dispatch
import PhoneAuthCore

/// A phone-number sign-in engine: sends one-time codes by SMS, signs users in with them, and
/// issues and checks their tokens. Its state lives in the database (SQLite or PostgreSQL), so
/// several engines, in one process or several, can share it.
///
/// Each operation exists twice: a synchronous method, which blocks the calling thread on the
/// database and on cryptography, and an `async` one, which does that work on a few Dispatch
/// threads (twice the store's connections or the machine's cores, whichever is more, and at
/// least 4; further calls wait their turn) and suspends the caller meanwhile — use it from
/// Swift concurrency (a Vapor or Hummingbird handler), so an event loop or the cooperative pool
/// is never blocked. A call that has started completes even if its task is cancelled.
///
/// ```swift
/// let auth = try PhoneAuth(configuration: .init(database: "auth.db"))
/// let verification = try await auth.verifyPhoneNumber("+16505553434")
/// // ... the user types the code from the SMS ...
/// let credential = try PhoneAuth.credential(verificationID: verification.verificationID,
///                                           verificationCode: code)
/// let session = try await auth.signIn(with: credential)
/// ```
public final class PhoneAuth: Sendable {
    package let engine: Engine
    /// Where the `async` variants run the blocking work.
    let pool: BlockingPool
    /// Who every call of this view is for: its tenant (``tenant(_:)``; none named: the default pool).
    let scope: Caller

    /// The tenant this view's calls are for (nil: the default pool).
    public var tenantID: String? { scope.tenant?.named }

    /// Opens the engine with a typed configuration (see ``Configuration``).
    public convenience init(configuration: Configuration) throws(PhoneAuthError) {
        try self.init(config: configuration.jsonValue)
    }

    /// Opens the engine with the JSON configuration that `phoneauth_open` takes (docs/API.md,
    /// "Configuration"): every key, SMS providers included. `asyncThreads` caps how many calls of
    /// the `async` variants run at once (by default twice the store's connections or the
    /// machine's cores, whichever is more, and at least 4); the rest wait their turn.
    public convenience init(json: String, asyncThreads: Int? = nil) throws(PhoneAuthError) {
        try self.init(config: try Self.parse(json, what: "configuration"), asyncThreads: asyncThreads)
    }

    private init(config: JSONValue, asyncThreads: Int? = nil) throws(PhoneAuthError) {
        do { engine = try Engine(config: try EngineConfig.read(config)) } catch {
            throw PhoneAuthError(error, during: "open")
        }
        pool =
            asyncThreads.map(BlockingPool.init(width:))
            ?? BlockingPool(storeConnections: engine.storageStatistics().poolSize)
        scope = Caller()
    }

    private init(engine: Engine, pool: BlockingPool, scope: Caller) {
        self.engine = engine
        self.pool = pool
        self.scope = scope
    }

    /// The same engine, for the users of tenant `id` (docs/API.md, "Tenants"): every method of
    /// the view works in that tenant, as the JSON methods do with `tenantId`. Methods that take a
    /// user's token refuse another tenant's (`tenant("")` is the default pool's view, which
    /// refuses tenants' tokens there). The tenant must exist when a call is made; closing any view
    /// closes the engine.
    public func tenant(_ id: String) throws(PhoneAuthError) -> PhoneAuth {
        do { return PhoneAuth(engine: engine, pool: pool, scope: Caller(tenant: try TenantID(id))) } catch {
            throw PhoneAuthError(error, during: "tenant")
        }
    }

    /// Who a call of this view is for and from: the view's tenant (nil: none named), with the end
    /// user's address and language when the method takes them.
    func caller(
        clientIP: String? = nil, userAgent: String? = nil, languageCode: String? = nil
    ) throws -> Caller {
        Caller(
            tenant: scope.tenant, address: try ClientAddress(clientIP, userAgent: userAgent),
            language: try LanguageTag(languageCode))
    }

    /// Stops the delivery threads (messages not yet sent stay queued in the database for the next
    /// engine) and closes the database. It does not wait for calls in flight: they, and calls
    /// after it, fail with `storageError`. Closing twice is harmless; an engine that is no longer
    /// referenced closes by itself.
    public func close() { engine.close() }

    // MARK: Sign-in

    /// Sends a one-time code by SMS to `phoneNumber` (E.164 or any common format with a leading
    /// `+`). Within `resendAfterSeconds` of the last one for the same number, it returns that
    /// verification again and sends nothing. A test number (``Configuration/testPhoneNumbers``)
    /// gets no SMS: its fixed code works.
    /// - Parameters:
    ///   - phoneNumber: the number to send the code to.
    ///   - languageCode: the SMS's language, e.g. `fr-CA` (falls back to `fr`, then the default).
    ///   - clientIP: the end user's IP address, for the per-IP limits.
    ///   - userAgent: the `User-Agent` of the end user's request (with `clientIP`), which blocking
    ///     hooks are told.
    ///   - appVerification: the app's proof, when app verification is on.
    ///   - channel: SMS, WhatsApp or a voice call; nil lets `channels.preferred` choose.
    public func verifyPhoneNumber(
        _ phoneNumber: String, languageCode: String? = nil, clientIP: String? = nil, userAgent: String? = nil,
        appVerification: AppVerification? = nil, channel: DeliveryChannel? = nil
    ) throws(PhoneAuthError) -> Verification {
        Verification(
            try run("verifyPhoneNumber") {
                try $0.verification.verifyPhoneNumber(
                    phoneNumber, appProof: try appVerification?.core(), channel: channel?.core,
                    for: try caller(clientIP: clientIP, userAgent: userAgent, languageCode: languageCode))
            })
    }

    /// Pairs a verification with the code the user typed. Checks only that both are there.
    public static func credential(
        verificationID: String, verificationCode: String
    ) throws(PhoneAuthError) -> PhoneCredential {
        do {
            return PhoneCredential(
                core: try VerificationService.credential(
                    verificationId: verificationID, verificationCode: verificationCode))
        } catch {
            throw PhoneAuthError(error, during: "credential")
        }
    }

    /// Signs in with a code: consumes the verification (a code works once) and creates the
    /// account on its number's first sign-in. An account with second factors gets
    /// ``PhoneAuthError/Code/secondFactorRequired``, whose ``PhoneAuthError/multiFactorChallenge``
    /// finishes the sign-in.
    /// - Parameters:
    ///   - credential: the verification and the code the user typed.
    ///   - clientIP: the end user's IP address: wrong codes from one address are limited.
    ///   - userAgent: the `User-Agent` of the end user's request (with `clientIP`), which blocking
    ///     hooks are told.
    public func signIn(
        with credential: PhoneCredential, clientIP: String? = nil, userAgent: String? = nil
    ) throws(PhoneAuthError) -> SignInResult {
        let core = credential.core
        return SignInResult(
            try run("signIn") {
                try $0.signIn.signIn(with: core, for: try caller(clientIP: clientIP, userAgent: userAgent))
            })
    }

    // MARK: Second factors

    /// Sends a code to a number the signed-in user (`idToken`, from a recent sign-in) enrols as a
    /// second factor; finish with `finishPhoneEnrollment(idToken:credential:displayName:clientIP:)`.
    public func startPhoneEnrollment(
        idToken: String, phoneNumber: String, languageCode: String? = nil, clientIP: String? = nil,
        userAgent: String? = nil,
        appVerification: AppVerification? = nil, channel: DeliveryChannel? = nil
    ) throws(PhoneAuthError) -> Verification {
        Verification(
            try run("mfaEnrollStart") {
                try $0.multiFactor.startPhoneEnrollment(
                    idToken: idToken, phoneNumber: phoneNumber, appProof: try appVerification?.core(),
                    channel: channel?.core,
                    for: try caller(clientIP: clientIP, userAgent: userAgent, languageCode: languageCode))
            })
    }

    /// Enrols the number the credential's code proves; the result's tokens replace the old ones.
    public func finishPhoneEnrollment(
        idToken: String, credential: PhoneCredential, displayName: String? = nil,
        clientIP: String? = nil, userAgent: String? = nil
    ) throws(PhoneAuthError) -> SignInResult {
        let core = credential.core
        return SignInResult(
            try run("mfaEnrollFinalize") {
                try $0.multiFactor.finishPhoneEnrollment(
                    idToken: idToken, credential: core, displayName: try Label(displayName, field: "displayName"),
                    for: try caller())
            })
    }

    /// Removes a second factor of the signed-in user.
    public func unenroll(idToken: String, enrollmentID: String) throws(PhoneAuthError) -> SignInResult {
        SignInResult(
            try run("mfaUnenroll") {
                try $0.multiFactor.unenroll(idToken: idToken, enrollmentId: enrollmentID, for: try caller())
            })
    }

    /// Sends a code to the enrolled number `enrollmentID` (a hint of the challenge) without
    /// revealing the number.
    public func sendSecondFactorCode(
        session: String, enrollmentID: String, languageCode: String? = nil, clientIP: String? = nil,
        userAgent: String? = nil,
        appVerification: AppVerification? = nil, channel: DeliveryChannel? = nil
    ) throws(PhoneAuthError) -> Verification {
        Verification(
            try run("verifyPhoneNumber") {
                try $0.multiFactor.verifySecondFactor(
                    hint: enrollmentID, session: session, appProof: try appVerification?.core(), channel: channel?.core,
                    for: try caller(clientIP: clientIP, userAgent: userAgent, languageCode: languageCode))
            })
    }

    /// Finishes a challenge's sign-in with the second factor's code.
    public func resolveSignIn(
        session: String, credential: PhoneCredential, clientIP: String? = nil, userAgent: String? = nil
    ) throws(PhoneAuthError) -> SignInResult {
        let core = credential.core
        return SignInResult(
            try run("mfaResolveSignIn") {
                try $0.multiFactor.resolveSignIn(
                    session: session, assertion: .phone(core),
                    for: try caller(clientIP: clientIP, userAgent: userAgent))
            })
    }

    // MARK: Tokens

    /// Checks an ID token's signature, issuer, audience and lifetime; with `checkRevoked`, also
    /// that its user exists, is enabled and has not had its sessions revoked since. A tenant's
    /// view also refuses tokens of other pools; the engine's own accepts every pool's.
    public func verifyIDToken(_ idToken: String, checkRevoked: Bool = false) throws(PhoneAuthError) -> IDToken {
        IDToken(
            try run("verifyIdToken") {
                try $0.sessions.verifyIdToken(idToken, checkRevoked: checkRevoked, for: try caller())
            })
    }

    /// A new ID token for a refresh token, which is rotated: use the returned one next time.
    public func refreshIDToken(_ refreshToken: String) throws(PhoneAuthError) -> SignInResult {
        SignInResult(try run("refreshIdToken") { try $0.sessions.refreshIdToken(refreshToken, for: try caller()) })
    }

    /// Ends the session of a refresh token; its ID tokens stay valid until they expire.
    public func signOut(refreshToken: String) throws(PhoneAuthError) {
        try run("signOut") { try $0.sessions.signOut(refreshToken: refreshToken, for: try caller()) }
    }

    /// Ends every session of a user: refresh tokens stop working, and ID tokens issued before now
    /// fail `verifyIDToken(_:checkRevoked:)` with `checkRevoked`.
    public func revokeRefreshTokens(uid: String) throws(PhoneAuthError) {
        try run("revokeRefreshTokens") { try $0.sessions.revokeRefreshTokens(uid: uid, for: try caller()) }
    }

    // MARK: Accounts

    /// The account with this ID, or ``PhoneAuthError/Code/userNotFound``.
    public func user(uid: String) throws(PhoneAuthError) -> User {
        User(try run("getUser") { try $0.accounts.user(uid: uid, for: try caller()) })
    }

    /// The account that signs in with this number, or ``PhoneAuthError/Code/userNotFound``.
    public func user(phoneNumber: String) throws(PhoneAuthError) -> User {
        User(
            try run("getUserByPhoneNumber") { try $0.accounts.user(phoneNumber: phoneNumber, for: try caller()) })
    }

    /// Creates an account; `uid` is generated when nil.
    public func createUser(
        uid: String? = nil, phoneNumber: String? = nil, displayName: String? = nil,
        disabled: Bool = false
    ) throws(PhoneAuthError) -> User {
        User(
            try run("createUser") {
                try $0.accounts.createUser(
                    uid: uid, for: try caller(), disabled: disabled,
                    displayName: try Label(displayName, field: "displayName"),
                    phoneNumber: phoneNumber)
            })
    }

    /// Changes what is given, all in one transaction: `.some(nil)` removes the name, the number
    /// or the claims. A number another account has is refused; claims are the JSON text of an
    /// object, as `setCustomUserClaims(uid:claimsJSON:)` takes them.
    public func updateUser(
        uid: String, disabled: Bool? = nil, displayName: String?? = nil, phoneNumber: String?? = nil,
        customClaimsJSON: String?? = nil
    ) throws(PhoneAuthError) -> User {
        let claims: JSONValue?? = try customClaimsJSON.map { text throws(PhoneAuthError) in
            try text.map { text throws(PhoneAuthError) in try Self.parse(text, what: "claims") }
        }
        return User(
            try run("updateUser") {
                let name = try displayName.map { name throws(PhoneAuthCore.PhoneAuthError) in
                    try Label(name, field: "displayName")
                }
                return try $0.accounts.updateUser(
                    uid: uid, for: try caller(), disabled: disabled, displayName: name, phoneNumber: phoneNumber,
                    customClaims: claims)
            })
    }

    /// Deletes an account, its sessions and its second factors.
    public func deleteUser(uid: String) throws(PhoneAuthError) {
        try run("deleteUser") { try $0.accounts.deleteUser(uid: uid, for: try caller()) }
    }

    /// Sets the claims every new ID token of the user carries (the JSON text of an object, at
    /// most 1000 bytes, no reserved names), or removes them with nil.
    public func setCustomUserClaims(uid: String, claimsJSON: String?) throws(PhoneAuthError) {
        let claims = try claimsJSON.map { text throws(PhoneAuthError) in try Self.parse(text, what: "claims") }
        try run("setCustomUserClaims") {
            try $0.accounts.setCustomUserClaims(uid: uid, for: try caller(), claims: claims)
        }
    }

    /// A page of accounts in uid order; pass the returned token for the next page.
    public func listUsers(
        maxResults: Int = 1000, pageToken: String? = nil
    ) throws(PhoneAuthError) -> (users: [User], nextPageToken: String?) {
        let page = try run("listUsers") {
            try $0.accounts.listUsers(for: try caller(), maxResults: maxResults, pageToken: pageToken)
        }
        return (page.users.map(User.init), page.nextPageToken)
    }

    /// A token the client exchanges for a session of `uid` (Firebase's custom-token sign-in).
    public func createCustomToken(uid: String, claimsJSON: String? = nil) throws(PhoneAuthError) -> String {
        let claims = try claimsJSON.map { text throws(PhoneAuthError) in try Self.parse(text, what: "claims") }
        return try run("createCustomToken") {
            try $0.signIn.createCustomToken(uid: uid, claims: claims, for: try caller())
        }
    }

    // MARK: The JSON methods

    /// The most users one `importUsers` call takes.
    public static let maxImportUsers = AccountTransfer.maxImportUsers

    /// The public signing keys as a JSON Web Key Set (`{"keys": [...]}`), for services that check
    /// the ID tokens themselves.
    public var jwksJSON: String { JSONCodec.serialize(engine.keyService.jwks) }

    /// Whether `call(_:paramsJSON:)` knows the method `name`.
    public static func hasMethod(_ name: String) -> Bool { Engine.operation(named: name) != nil }

    /// The method `name`, or nil when the engine has none of that name.
    public static func method(named name: String) -> Method? { Engine.operation(named: name).map(Method.init) }

    /// Every JSON method, in the order docs/API.md lists them.
    public static var methods: [Method] { Engine.operations.map(Method.init) }

    /// Runs one of the engine's JSON methods, the same as `phoneauth_call` (docs/API.md,
    /// "Methods"): `paramsJSON` is an object's text; the result is the result's text, or an error
    /// object `{"error": {...}}` with `status` non-zero.
    public func call(_ method: String, paramsJSON: String) -> (status: Int32, json: String) {
        do {
            var params = try Self.parse(paramsJSON, what: "parameters")
            // A tenant's view names its tenant to every method that takes one, unless the call does.
            if let tenant = scope.tenant, case var .object(pairs) = params,
                !pairs.contains(where: { $0.0 == "tenantId" }),
                Engine.operation(named: method)?.scopedByTenant == true
            {
                pairs.append(("tenantId", .string(tenant.text)))
                params = .object(pairs)
            }
            let (status, result) = engine.call(method, params: params)
            return (status, JSONCodec.serialize(result))
        } catch {
            let failure = PhoneAuthCore.PhoneAuthError.from(error, during: method)
            return (failure.code.status, JSONCodec.serialize(failure.jsonValue))
        }
    }

    // MARK: Helpers

    func run<T>(_ what: String, _ body: (Engine) throws -> T) throws(PhoneAuthError) -> T {
        do { return try body(engine) } catch { throw PhoneAuthError(error, during: what) }
    }

    private static func parse(_ text: String, what: String) throws(PhoneAuthError) -> JSONValue {
        do { return try JSONCodec.parse(text) } catch {
            throw PhoneAuthError(
                PhoneAuthCore.PhoneAuthError(
                    .invalidArgument,
                    "The \(what) text is not valid JSON: \(error.message) "
                        + "(line \(error.line), column \(error.column)).",
                    details: [("line", .int(Int64(error.line))), ("column", .int(Int64(error.column)))]))
        }
    }

    /// Runs `body` on the engine's pool and suspends the caller until it returns.
    func offload<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            pool.run { continuation.resume(returning: Result { () throws(E) -> T in try body() }) }
        }
        return try result.get()
    }
}
