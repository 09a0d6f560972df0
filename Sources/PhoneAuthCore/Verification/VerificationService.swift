/// Verifying a number: a code made, kept hashed and sent by SMS (or a test number's fixed code),
/// what a verification has become, and the checks a submitted code goes through before the store
/// compares it.
package final class VerificationService {
    private let config: EngineConfig
    private let clock: Clock
    private let store: any VerificationStore
    private let keys: KeyRing
    private let worker: DeliveryWorker
    private let appVerification: AppVerificationService
    private let hooks: HookService
    private let failures: FailureReporter
    /// The pools (the Swift tests' default-pool calls take theirs from here).
    let tenants: TenantService

    init(
        tenants: TenantService, config: EngineConfig, clock: Clock, store: any VerificationStore, keys: KeyRing,
        worker: DeliveryWorker, appVerification: AppVerificationService, hooks: HookService,
        failures: FailureReporter
    ) {
        self.config = config
        self.clock = clock
        self.store = store
        self.keys = keys
        self.worker = worker
        self.appVerification = appVerification
        self.hooks = hooks
        self.failures = failures
        self.tenants = tenants
    }

    /// Starts a sign-in verification in the caller's pool.
    package func verifyPhoneNumber(
        _ phoneNumber: String?, appProof: AppProof? = nil, channel: Channel? = nil, for caller: Caller
    ) throws -> VerificationStarted {
        let pool = try tenants.pool(for: caller)
        return try sendCode(
            to: try PhoneNumber.parse(phoneNumber), purpose: .signIn, subject: nil, appProof: appProof,
            channel: channel, for: caller, in: pool)
    }

    /// Starts a verification of `phone` in `pool` whose code serves `purpose` only, and queues
    /// its SMS. `user` is the user whose second factor it is, for the beforeSendSms hook.
    func sendCode(
        to phone: PhoneNumber, purpose: VerificationPurpose, subject: String?, appProof: AppProof?,
        user: UserRecord? = nil, channel asked: Channel? = nil, for caller: Caller, in pool: Pool
    ) throws -> VerificationStarted {
        let policy = config.abuse
        let channel = try checkDestination(phone, asked: asked, policy: policy, in: pool)
        let testCode = try fixedTestCode(for: phone, in: pool)
        let pumping = config.pumping.overridden(by: pool.pumping)
        let risk = try appVerification.checkAppProof(
            appProof, clientIp: caller.address,
            rated: testCode == nil && pumping.rates(phone, from: caller.address) ? phone : nil)
        let languageCode = caller.language
        let language = pool.smsText.resolve(languageCode?.text, fallback: config.defaultLanguageCode)
        // Before any limit counts it or the verification is written: a BLOCK leaves no trace.
        try hooks.beforeSendSms(
            phone: phone.e164, purpose: purpose, user: user, pool: pool, locale: languageCode?.text ?? language,
            client: caller.address)
        let now = clock.now()
        let id = VerificationCode.newVerificationId(at: now)
        let code = testCode ?? VerificationCode.generate(length: config.codeLength)
        var outbox: NewOutboxMessage?
        if testCode == nil {
            // The code, not a text: a fallback or a resend says it again in another channel's words.
            outbox = NewOutboxMessage(
                languageCode: language, askedLanguage: languageCode?.text,
                sealedCode: try keys.sealBody(code, verificationId: id))
        }
        let verification = NewVerification(
            id: id, phone: phone.e164, codeHash: keys.codeHash(verificationId: id, code: code),
            createdAt: now, expiresAt: now.adding(seconds: config.codeTtlSeconds), outbox: outbox,
            purpose: purpose, subject: subject, tenant: pool.tenant, channel: channel,
            fallback: config.channels.fallback[channel], channelAsked: asked != nil, region: phone.region)
        let reuseWindowStart = config.resendAfterSeconds > 0 ? now.adding(seconds: -config.resendAfterSeconds) : nil
        // Test numbers are exempt from the send limits (they send nothing).
        let limits =
            testCode != nil
            ? nil
            : sendLimits(
                phone, channel: channel, clientIp: caller.address, policy: policy,
                pumping: PumpingCheck(
                    pumping, phone: phone, channel: channel, from: caller.address, tenant: pool.tenant,
                    tollFraudRisk: risk))
        let start = try startVerification(verification, reuseIfCreatedAfter: reuseWindowStart, limits: limits)
        return try started(start, verification, testCode: testCode, phone: phone, now: now)
    }

    /// The channel the code goes by, once it is known that a provider carries it and that codes
    /// may go to this number at all. Checked for test numbers too, so tests meet the production
    /// rules.
    private func checkDestination(
        _ phone: PhoneNumber, asked: Channel?, policy: AbusePolicy, in pool: Pool
    ) throws -> Channel {
        let channel = config.channels.channel(asked, region: phone.region)
        guard worker.carries(channel) else {
            throw PhoneAuthError(
                .invalidArgument, "No provider sends codes by \(channel.rawValue) (sms.providers' channels).",
                details: [("field", .string("channel")), ("reason", .string("channelUnavailable"))])
        }
        if !policy.deniedTypes.isEmpty, case let type = phone.type, policy.deniedTypes.contains(type) {
            throw PhoneAuthError(
                .invalidPhoneNumber, "SMS codes are not sent to \(type.name) numbers (phoneNumberTypes.deny).",
                details: [("reason", .string("typeNotAllowed")), ("type", .string(type.name))])
        }
        guard policy.allowsRegion(phone.region), pool.allowsRegion(phone.region) else {
            throw PhoneAuthError(
                .operationNotAllowed, "SMS codes are not sent to numbers of region \(phone.region) (smsRegionPolicy).",
                details: [("reason", .string("regionNotAllowed")), ("region", .string(phone.region))])
        }
        return channel
    }

    /// The pool's fixed code for a test number (nil for any other number, which app
    /// verification disabled for testing refuses).
    private func fixedTestCode(for phone: PhoneNumber, in pool: Pool) throws -> String? {
        let testCode = pool.testPhoneNumbers[phone.e164]
        if config.appVerificationDisabledForTesting && testCode == nil {
            throw PhoneAuthError(
                .appNotVerified,
                "App verification is disabled for testing (appVerification.disabledForTesting), "
                    + "so only the configured test phone numbers are accepted.",
                details: [("setting", .string("appVerification.disabledForTesting"))])
        }
        return testCode
    }

    /// The send limits the store counts a new code against.
    private func sendLimits(
        _ phone: PhoneNumber, channel: Channel, clientIp: ClientAddress?, policy: AbusePolicy, pumping: PumpingCheck?
    ) -> SendLimits {
        SendLimits(
            phone: phone.e164, region: phone.region, clientIp: clientIp?.limitKey,
            perNumberPerHour: policy.smsPerNumberPerHour,
            perIpPerHour: policy.smsPerIpPerHour,
            perProjectPerDay: policy.smsPerProjectPerDay,
            perRegionPerDay: policy.smsPerRegionPerDay[phone.region] ?? 0,
            regionBurstPerHour: policy.regionBurstPerHour, voice: policy.voiceLimits(channel), pumping: pumping)
    }

    /// Writes the verification under a new delivery lease (or finds the one to reuse, or what
    /// refuses it).
    private func startVerification(
        _ verification: NewVerification, reuseIfCreatedAfter reuseWindowStart: Timestamp?, limits: SendLimits?
    ) throws -> VerificationStart {
        let lease = worker.newLease()
        do {
            return try store.startVerification(
                verification, reuseIfCreatedAfter: reuseWindowStart, lease: lease, limits: limits)
        } catch let error as PhoneAuthError
            where verification.outbox != nil && error.detail("commitUnknown") == .bool(true)
        {
            // The write may have committed with its answer lost: then its message is owed, and a
            // retry (answered with this verification) must not wait for the lease to run out.
            worker.commitUnknown(verificationId: verification.id, lease: lease)
            throw error
        }
    }

    /// The caller's answer to what the store did: a created verification's message is queued, a
    /// resent one's too; a refusal is thrown.
    private func started(
        _ start: VerificationStart, _ verification: NewVerification, testCode: String?, phone: PhoneNumber,
        now: Timestamp
    ) throws -> VerificationStarted {
        switch start {
        case let .created(flagged):
            if let flagged { failures.pumpingSuspected(flagged) }
            if let outbox = verification.outbox {
                worker.enqueue(
                    OutboxMessage(
                        verificationId: verification.id, phone: phone.e164, languageCode: outbox.languageCode,
                        askedLanguage: outbox.askedLanguage, sealedCode: outbox.sealedCode,
                        channel: verification.channel, seq: 1, tenant: verification.tenant, attempts: 0,
                        purpose: verification.purpose, expiresAt: verification.expiresAt))
            }
            return VerificationStarted(
                verificationId: verification.id, codeLength: testCode?.count ?? config.codeLength,
                expiresAt: verification.expiresAt, resendAt: now.adding(seconds: config.resendAfterSeconds),
                channel: testCode == nil ? verification.channel : nil)
        case let .resent(existingId, createdAt, expiresAt, message):
            worker.enqueue(message)
            return VerificationStarted(
                verificationId: existingId, codeLength: config.codeLength, expiresAt: expiresAt,
                resendAt: createdAt.adding(seconds: config.resendAfterSeconds), channel: message.channel)
        case let .blocked(since):
            let retryAt = since.adding(seconds: config.resendAfterSeconds)
            throw PhoneAuthError(
                .tooManyRequests,
                "Too many wrong codes were tried for this number; a new code can be sent at \(retryAt.rfc3339).",
                details: [
                    ("reason", .string("tooManyAttempts")),
                    ("retryAfterSeconds", .int(max(1, (retryAt.milliseconds - now.milliseconds + 999) / 1000))),
                ])
        case let .limited(trip):
            throw failures.limitError(trip, now: now)
        case let .numberLocked(until):
            throw failures.numberLocked(phone, until: until, now: now)
        case let .suspectedPumping(decision):
            failures.pumpingSuspected(decision)
            throw decision.error
        case let .reused(existingId, createdAt, expiresAt, existingChannel):
            return VerificationStarted(
                verificationId: existingId, codeLength: testCode?.count ?? config.codeLength,
                expiresAt: expiresAt, resendAt: createdAt.adding(seconds: config.resendAfterSeconds),
                channel: existingChannel)
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

    /// What the verification `verificationId` of the caller's pool has become.
    package func verificationStatus(_ verificationId: String, for caller: Caller) throws -> VerificationStatus {
        let pool = try tenants.pool(for: caller)
        guard VerificationCode.isWellFormedId(verificationId),
            let status = try store.verificationStatus(id: verificationId, in: pool, now: clock.now())
        else {
            throw PhoneAuthError(.invalidVerificationID, "No verification has this ID.")
        }
        return status
    }

    /// Checks a credential's verification ID before any store access; a temporary proof is only
    /// accepted where `allowProof` (signing in).
    static func checkCredential(_ credential: PhoneCredential, allowProof: Bool = false) throws {
        if credential.isTemporaryProof && !allowProof {
            throw PhoneAuthError(
                .invalidCredential,
                "A temporary proof only signs in (signInWithCredential); use a code sent to the number here.",
                details: [("reason", .string("temporaryProof"))])
        }
        guard VerificationCode.isWellFormedId(credential.verificationId) else {
            throw PhoneAuthError(
                .invalidVerificationID, "The verification ID is malformed.", details: [("reason", .string("malformed"))]
            )
        }
    }

    /// The wrong-code limits of a code check from the caller's address (the pool's test numbers
    /// are exempt).
    func checkLimits(for caller: Caller, in pool: Pool) -> CheckLimits {
        let policy = config.abuse
        return CheckLimits(
            maxConsecutiveFailures: policy.maxConsecutiveFailures, failuresBetweenLockouts: config.maxAttempts,
            lockoutMilliseconds: policy.lockoutSeconds * 1000, maxLockoutMilliseconds: policy.maxLockoutSeconds * 1000,
            clientIp: caller.address?.limitKey, wrongCodesPerIpPer5Minutes: policy.wrongCodesPerIpPer5Minutes,

            exempt: Set(pool.testPhoneNumbers.keys))
    }

    /// Compares a stored code hash with the credential's, in constant time.
    func codeMatcher(_ credential: PhoneCredential) -> ([UInt8]) -> Bool {
        let expected = keys.codeHash(verificationId: credential.verificationId, code: credential.verificationCode)
        return { SecureBytes.equal($0, expected) }
    }
}
