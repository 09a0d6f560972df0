import Crypto

/// Passkeys after phone sign-in: a signed-in user registers one (enrolment), and later signs in
/// with it instead of a code. Each ceremony starts with a challenge the store keeps (by its hash,
/// used once, `challengeTtlSeconds`) and ends with the browser's response, checked by
/// PasskeyVerifier. A passkey sign-in opens a session as any sign-in does (`passkey` provider).
package final class PasskeyService {
    private let clock: Clock
    private let store: any PasskeyStore & SignInStore & AccountStore
    private let sessions: SessionService
    private let tenants: TenantService
    /// For the user handle and the decoy credential IDs, keyed so that neither says anything.
    private let keys: KeyRing
    private let abuse: AbusePolicy
    private let failures: FailureReporter

    init(
        config: EngineConfig, clock: Clock, store: any PasskeyStore & SignInStore & AccountStore,
        sessions: SessionService, tenants: TenantService, keys: KeyRing, failures: FailureReporter
    ) {
        self.keys = keys
        abuse = config.abuse
        self.failures = failures
        self.clock = clock
        self.store = store
        self.sessions = sessions
        self.tenants = tenants
    }

    /// The pool's settings (a tenant's own, else the engine's); refused when passkeys are off.
    private func configured(_ pool: Pool) throws -> PasskeySettings {
        guard let settings = pool.passkeys else {
            throw PhoneAuthError(
                .operationNotAllowed, "Passkeys are not configured (passkeys.rpId and passkeys.origins).",
                details: [("setting", .string("passkeys"))])
        }
        return settings
    }

    /// A new challenge, kept for `ceremony` (and the user it is for, when known); counted, with
    /// push receipts and captcha challenges, against the caller's address (`appChecksPerIpPerHour`).
    private func challenge(
        _ ceremony: ClientData.Ceremony, _ settings: PasskeySettings, tenant: TenantID, uid: String?,
        for caller: Caller
    ) throws -> [UInt8] {
        let challenge = SecureBytes.random(count: 32)
        let now = clock.now()
        if let trip = try store.addPasskeyChallenge(
            hash: Array(SHA256.hash(data: challenge)), ceremony: ceremony, tenant: tenant, uid: uid,
            expiresAt: now.adding(seconds: settings.challengeTtlSeconds), now: now,
            ipKey: caller.address?.limitKey, ipLimit: abuse.appChecksPerIpPerHour)
        {
            throw failures.limitError(trip, now: now)
        }
        return challenge
    }

    /// The challenge `clientData` answers, used up, and the user it was given to; refused when
    /// it is unknown, used, expired, another ceremony's or another tenant's.
    private func answered(
        _ response: PasskeyResponse, _ ceremony: ClientData.Ceremony, tenant: TenantID
    ) throws -> (challenge: [UInt8], uid: String?) {
        guard let json = try? JSONCodec.parse(bytes: response.clientData),
            let challenge = json["challenge"]?.stringValue.flatMap(Base64URL.decode), challenge.count == 32
        else { throw PasskeyRefusal.wrongChallenge.error }
        guard
            let uid = try store.takePasskeyChallenge(
                hash: Array(SHA256.hash(data: challenge)), ceremony: ceremony, tenant: tenant, now: clock.now())
        else { throw PasskeyRefusal.wrongChallenge.error }
        return (challenge, uid)
    }

    /// `PublicKeyCredentialCreationOptions` for the user of `idToken`: a resident key, the
    /// configured user verification, attestation asked for only when judged (attestationRoots), and
    /// the passkeys it has excluded.
    package func startEnrollment(idToken: String, for caller: Caller) throws -> JSONValue {
        let session = try sessions.session(of: idToken, recent: true, for: caller)
        let user = session.user
        let settings = try configured(try tenants.pool(of: user))
        let existing = try store.passkeys(uid: user.uid, tenant: user.tenant)
        guard existing.count < settings.maxPerUser else { throw tooMany(settings) }
        let challenge = try challenge(.create, settings, tenant: user.tenant, uid: user.uid, for: caller)
        let name = user.phoneNumber ?? user.uid
        return .object([
            ("challenge", .string(Base64URL.encode(challenge))),
            ("rp", .object([("id", .string(settings.rpId)), ("name", .string(settings.rpName))])),
            (
                "user",
                .object([
                    ("id", .string(Base64URL.encode(userHandle(user)))), ("name", .string(name)),
                    ("displayName", .string(user.displayName ?? name)),
                ])
            ),
            (
                "pubKeyCredParams",
                .array(
                    PasskeyVerifier.algorithms.sorted(by: >).map {
                        .object([("type", .string("public-key")), ("alg", .int($0))])
                    })
            ),
            ("timeout", .int(settings.challengeTtlSeconds * 1000)),
            // Asked for only when the host judges it (attestationRoots).
            ("attestation", .string(settings.attestation == nil ? "none" : "direct")),
            (
                "authenticatorSelection",
                .object([
                    ("residentKey", .string("required")), ("requireResidentKey", .bool(true)),
                    ("userVerification", .string(settings.userVerification.rawValue)),
                ])
            ),
            ("excludeCredentials", .array(existing.map { Self.descriptor($0.id) })),
        ])
    }

    /// Registers the passkey of `response` to the user of `idToken`, who must be the one the
    /// challenge was given to; with fresh tokens of a session that carries the enrolling one on
    /// (as Identity Platform's finalize answers, and as a second factor's enrolment does).
    package func finishEnrollment(
        idToken: String, response: PasskeyResponse, name: Label?, for caller: Caller
    ) throws -> (Passkey, SignInResult) {
        let session = try sessions.session(of: idToken, recent: true, for: caller)
        let user = session.user
        let settings = try configured(try tenants.pool(of: user))
        let (challenge, uid) = try answered(response, .create, tenant: user.tenant)
        guard uid == user.uid else { throw PasskeyRefusal.wrongChallenge.error }
        let registered: PasskeyVerifier.Registered
        do {
            registered = try PasskeyVerifier.register(
                attestationObject: response.attestationObject,
                clientData: try ClientData(
                    response.clientData, ceremony: .create, challenge: challenge, origins: settings.origins),
                rpId: settings.rpId, userVerification: settings.requiresUserVerification,
                trust: settings.attestation, at: clock.now().seconds)
        } catch { throw Self.mapped(error) }
        guard Base64URL.encode(registered.id) == response.credentialId else { throw PasskeyRefusal.malformed.error }
        let passkey = Passkey(
            id: response.credentialId, tenant: user.tenant, uid: user.uid, publicKey: registered.publicKey,
            algorithm: registered.algorithm, signCount: registered.signCount, aaguid: registered.aaguid,
            format: registered.format, backupEligible: registered.backupEligible,
            name: name?.text ?? "Passkey", createdAt: clock.now(), lastUsedAt: nil)
        let now = clock.now()
        let (signIn, first) = try sessions.continuation(of: session, now: now)
        let outcome: AccountOutcome?
        do {
            outcome = try store.addPasskey(
                passkey, max: settings.maxPerUser, presentedSession: session.sessionId, opening: signIn, now: now)
        } catch let refusal as PasskeyRefusal { throw refusal.error }
        guard let outcome else { throw tooMany(settings) }
        return (passkey, try sessions.finish(outcome, first, now: now, clientIp: caller.address))
    }

    /// `PublicKeyCredentialRequestOptions` for a sign-in in the caller's pool: discoverable
    /// credentials (any of the pool's), or those of the user `uid` or `phoneNumber` names. A
    /// name with no passkey (no such user, or none registered) gets a decoy credential ID made
    /// from it with a server key, the same each time: the answer does not tell who has an
    /// account or a passkey (Web Authentication, section 14.6.2).
    package func startSignIn(uid: String?, phoneNumber: String?, for caller: Caller) throws -> JSONValue {
        let pool = try tenants.pool(for: caller)
        let settings = try configured(pool)
        var named = uid.map { (name: "uid:" + $0, uid: Optional($0)) }
        if named == nil, let phoneNumber {
            let phone = try PhoneNumber.parse(phoneNumber)
            named = ("phone:" + phone.e164, try store.user(.phoneNumber(phone.e164), tenant: pool.tenant)?.uid)
        }
        var allowed: [String] = []
        if let named {
            allowed = try named.uid.map { try store.passkeys(uid: $0, tenant: pool.tenant).map(\.id) } ?? []
            if allowed.isEmpty {
                let decoy = keys.codeHash(verificationId: "passkey-decoy:" + pool.tenant.text, code: named.name)
                allowed = [Base64URL.encode(decoy.prefix(16))]
            }
        }
        // Bound to the user named (when there is one): another's passkey cannot answer it.
        let challenge = try challenge(.get, settings, tenant: pool.tenant, uid: named?.uid ?? nil, for: caller)
        return .object([
            ("challenge", .string(Base64URL.encode(challenge))), ("rpId", .string(settings.rpId)),
            ("timeout", .int(settings.challengeTtlSeconds * 1000)),
            ("userVerification", .string(settings.userVerification.rawValue)),
            ("allowCredentials", .array(allowed.map(Self.descriptor))),
        ])
    }

    /// Signs in with the passkey of `response`: its assertion checked against the stored key and
    /// counter (which moves once: the same assertion twice is refused), then a session opened.
    /// A refusal is reported (`signInFailed`), a counter gone back also as a possible clone.
    package func finishSignIn(response: PasskeyResponse, for caller: Caller) throws -> SignInResult {
        let pool = try tenants.pool(for: caller)
        let settings = try configured(pool)
        let passkey: Passkey
        do {
            passkey = try asserted(response, pool: pool, settings: settings, for: caller)
        } catch let error as PhoneAuthError where error.code == .invalidCredential {
            throw failures.reported(error, clientIp: caller.address, now: clock.now())
        }
        let now = clock.now()
        let (signIn, first) = sessions.newSignIn(uid: passkey.uid, in: pool, provider: .passkey, now: now)
        return try sessions.finish(
            try store.signInUser(signIn, proved: .passkey(passkey.id), now: now), first, now: now,
            clientIp: caller.address)
    }

    /// The passkey whose assertion `response` is, its counter moved.
    private func asserted(
        _ response: PasskeyResponse, pool: Pool, settings: PasskeySettings, for caller: Caller
    ) throws -> Passkey {
        let (challenge, named) = try answered(response, .get, tenant: pool.tenant)
        // Another user's, another tenant's or a removed passkey is as unknown as one never made.
        guard let passkey = try store.passkey(id: response.credentialId, tenant: pool.tenant),
            named == nil || named == passkey.uid
        else { throw PasskeyRefusal.unknownCredential.error }
        let count: UInt32
        do {
            count = try PasskeyVerifier.assert(
                authenticatorData: response.authenticatorData, signature: response.signature,
                clientData: try ClientData(
                    response.clientData, ceremony: .get, challenge: challenge, origins: settings.origins),
                stored: PasskeyVerifier.Stored(
                    publicKey: passkey.publicKey, algorithm: passkey.algorithm, signCount: passkey.signCount),
                rpId: settings.rpId, userVerification: settings.requiresUserVerification)
        } catch PasskeyRefusal.counterWentBack {
            failures.counterWentBack(
                passkey, presented: AuthenticatorData(response.authenticatorData)?.signCount,
                clientIp: caller.address, now: clock.now())
            throw PasskeyRefusal.counterWentBack.error
        } catch { throw Self.mapped(error) }
        guard
            try store.usePasskey(
                id: passkey.id, tenant: pool.tenant, from: passkey.signCount, to: count, at: clock.now())
        else {
            // Another sign-in moved the counter first, or the passkey was removed meanwhile.
            guard try store.passkey(id: passkey.id, tenant: pool.tenant) != nil else {
                throw PasskeyRefusal.unknownCredential.error
            }
            failures.counterWentBack(passkey, presented: count, clientIp: caller.address, now: clock.now())
            throw PasskeyRefusal.counterWentBack.error
        }
        return passkey
    }

    /// The passkeys of the user of `idToken`.
    package func passkeys(idToken: String, for caller: Caller) throws -> [Passkey] {
        let user = try sessions.session(of: idToken, recent: false, for: caller).user
        return try store.passkeys(uid: user.uid, tenant: user.tenant)
    }

    /// Removes a passkey of the user of `idToken` (a recent sign-in is required).
    package func remove(credentialId: String, idToken: String, for caller: Caller) throws {
        let user = try sessions.session(of: idToken, recent: true, for: caller).user
        guard try store.removePasskey(id: credentialId, uid: user.uid, tenant: user.tenant) else {
            throw PasskeyRefusal.unknownCredential.error
        }
    }

    /// The user handle the authenticator keeps: 32 bytes made from the tenant and uid with a
    /// server key (a uid may be longer than WebAuthn's 64 bytes, and says nothing to the device).
    private func userHandle(_ user: UserRecord) -> [UInt8] {
        keys.codeHash(verificationId: "passkey-user:" + user.tenant.text, code: user.uid)
    }

    private static func descriptor(_ id: String) -> JSONValue {
        .object([("type", .string("public-key")), ("id", .string(id))])
    }

    private func tooMany(_ settings: PasskeySettings) -> PhoneAuthError {
        PhoneAuthError(
            .quotaExceeded, "A user has at most \(settings.maxPerUser) passkeys (passkeys.maxPerUser).",
            details: [("reason", .string("tooManyPasskeys")), ("max", .int(Int64(settings.maxPerUser)))])
    }

    private static func mapped(_ error: Error) -> Error { (error as? PasskeyRefusal)?.error ?? error }
}
