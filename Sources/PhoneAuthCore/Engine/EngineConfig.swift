import Glibc

/// The engine's configuration, read from the JSON object given to phoneauth_open.
package struct EngineConfig: Sendable {
    package enum SigningAlgorithm: String, Sendable, CaseIterable {
        case es256 = "ES256", rs256 = "RS256", edDSA = "EdDSA"
    }
    package enum SMSProviderKind: String, Sendable { case callback, console, providers }
    package enum Synchronous: String, Sendable { case normal, full }

    /// A SQLite file's path, or a postgresql:// URI.
    package var database: String
    /// The PostgreSQL options (their `uri` is `database`'s).
    package var postgres = PostgresSettings(uri: "")
    package var projectId = "phoneauth"
    package var issuer: String?
    package var masterKey: [UInt8]?
    package var signingAlgorithm = SigningAlgorithm.es256
    package var idTokenTtlSeconds: Int64 = 3600
    /// Days after which the active signing key is replaced automatically (0: never).
    package var signingKeyRotationDays: Int64 = 0
    /// How long after a rotation the previous refresh token still gets the new one (a retried or
    /// concurrent refresh is not theft); 0: any earlier token ends the session at once.
    package var refreshReuseIntervalSeconds: Int64 = 10
    /// How long after a sign-in its credential, presented again, gets the same session (a retry
    /// after an error whose commit is unknown); 0: a used code is refused at once.
    package var signInRetrySeconds: Int64 = 30
    package var codeLength = 6
    package var codeTtlSeconds: Int64 = 300
    package var maxAttempts = 5
    package var resendAfterSeconds: Int64 = 60
    package var defaultLanguageCode = "en"
    package var testPhoneNumbers: [String: String] = [:]
    package var appVerificationDisabledForTesting = false
    /// Whether verifyPhoneNumber needs a proof that the request comes from the app; nil: when a
    /// push sender or a captcha verifier is installed.
    package var appVerificationEnforce: Bool? = nil
    package var pushTimeoutSeconds: Int64 = 5
    /// How long a push receipt or a captcha challenge can be used.
    package var receiptTtlSeconds: Int64 = 300
    /// The host's page that shows the captcha (getCaptchaChallenge), and the score a verifier's
    /// answer must reach when it gives one.
    package var captchaPageUrl: String?
    /// `captcha.provider`: the service the built-in verifier asks about captcha tokens.
    package var captchaProvider: CaptchaProviderSettings?
    /// `hooks`: each blocking hook's HTTP endpoint and `onError`.
    package var hooks: [HookName: HookSettings] = [:]
    /// `events`: recorded durably and delivered when present (nil: no events are recorded).
    package var events: EventSettings?
    package var captchaMinScore = 0.5
    package var smsProvider = SMSProviderKind.callback
    /// The HTTP providers of `sms.providers`, in the order they are tried (smsProvider .providers).
    var smsProviders: [any HTTPProvider] = []
    /// `appVerification.pushWebhook`: where verification pushes go when no push sender is installed.
    var pushWebhook: WebhookProvider?
    /// Messages sent at once; nil: 16 for HTTP providers, 1 for a callback or the console.
    package var smsConcurrency: Int?
    package var smsBreakerFailures = 5
    package var smsBreakerSeconds: Int64 = 30
    package var smsMaxAttempts = 5
    package var smsRetryBackoffMs: Int64 = 1000
    /// `sms.appName`, `sms.templates` ({language tag: template}), `sms.originBoundDomain`,
    /// `sms.androidAppHash`, `sms.maxSegments`: the texts, checked when the engine opens (SMSText).
    package var smsAppName: String?
    package var smsTemplates: [String: String] = [:]
    package var smsOriginBoundDomain: String?
    package var smsAndroidAppHash: String?
    package var smsMaxSegments = 1
    package var sqliteSynchronous = Synchronous.normal
    /// Enrolling or removing a second factor needs a sign-in at most this old.
    package var mfaRecentSignInSeconds: Int64 = 300
    package var mfaMaxFactors = 5
    /// How long a multi-factor session (a challenge, or a TOTP enrolment) lasts.
    package var mfaSessionTtlSeconds: Int64 = 300
    /// How long a temporary proof from credentialAlreadyInUse can sign in.
    package var temporaryProofTtlSeconds: Int64 = 300
    package var abuse = AbusePolicy()
    package var pumping = PumpingPolicy()
    /// Passkeys after phone sign-in (`passkeys`; nil: off).
    package var passkeys: PasskeySettings?
    /// `channels`: the preferred channel by region, and fallbacks.
    package var channels = ChannelSettings()
    /// `voice.templates` ({language tag: template}): the host's texts for calls (VoiceText).
    package var voiceTemplates: [String: String] = [:]

    package init(database: String) { self.database = database }

    /// What the store needs to decide a fallback.
    var fallbackPolicy: FallbackPolicy {
        var policy = FallbackPolicy(
            afterMilliseconds: channels.fallbackAfterSeconds * 1000, perProjectPerDay: abuse.smsPerProjectPerDay,
            voice: SendLimits.Voice(
                perNumberPerHour: abuse.voicePerNumberPerHour, perProjectPerDay: abuse.voicePerProjectPerDay))
        policy.perRegionPerDay = abuse.smsPerRegionPerDay
        policy.regionBurstPerHour = abuse.regionBurstPerHour
        return policy
    }

    /// How many messages the engine sends at once.
    package var effectiveSMSConcurrency: Int { smsConcurrency ?? (smsProvider == .providers ? 16 : 1) }

    package var effectiveIssuer: String { issuer ?? "https://phoneauth.local/\(projectId)" }

    static let maxTestPhoneNumbers = 10

    /// Reads and validates a configuration object; every error names the offending key. The
    /// sections are read in this order so that the first bad key reported stays the same.
    package static func read(_ json: JSONValue) throws(PhoneAuthError) -> EngineConfig {
        let r = try ObjectReader(json, code: .invalidConfiguration, what: "configuration")
        try r.rejectUnknown([
            "database", "projectId", "issuer", "masterKey", "signingAlgorithm", "idTokenTtlSeconds",
            "refreshReuseIntervalSeconds", "signInRetrySeconds", "signingKeyRotationDays",
            "codeLength", "codeTtlSeconds", "maxAttempts", "resendAfterSeconds", "defaultLanguageCode",
            "testPhoneNumbers", "appVerification", "sms", "sqliteSynchronous", "mfa",
            "quotas", "smsRegionPolicy", "phoneNumberTypes", "captcha", "postgres", "hooks", "events",
            "channels", "voice", "pumping", "passkeys",
        ])
        var c = EngineConfig(database: try readDatabase(r))
        try c.readPostgres(r)
        try c.readIdentity(r)
        try c.readTokens(r)
        try c.readCodes(r)
        // Checked once sms.templates is read: a host template's language may be the default.
        let defaultLanguage = try r.string("defaultLanguageCode")
        if let numbers = try r.object("testPhoneNumbers") {
            c.testPhoneNumbers = try readTestPhoneNumbers(numbers)
        }
        if let app = try r.object("appVerification") { try c.readAppVerification(app) }
        if let events = try r.object("events") { c.events = try EventSettings.read(events) }
        if let hooks = try r.object("hooks") { c.hooks = try readHooks(hooks) }
        if let captcha = try r.object("captcha") { try c.readCaptcha(captcha) }
        if let sms = try r.object("sms") { try c.readSMS(sms) }
        if let v = defaultLanguage { c.defaultLanguageCode = try c.resolveDefaultLanguage(v) }
        if let mfa = try r.object("mfa") { try c.readMFA(mfa) }
        c.abuse = try AbusePolicy.read(r)
        c.pumping = try PumpingPolicy.read(r)
        if let passkeys = try r.object("passkeys") { c.passkeys = try PasskeySettings.read(passkeys) }
        if let channels = try r.object("channels") { c.channels = try ChannelSettings.read(channels) }
        if let voice = try r.object("voice") { c.voiceTemplates = try readVoice(voice) }
        try c.checkChannelsHaveProviders()
        if let v = try r.string("sqliteSynchronous") { c.sqliteSynchronous = try readSynchronous(v) }
        return c
    }

    /// With HTTP providers, every channel the settings may send on must have one that carries it
    /// (a host's sender and the console carry them all).
    private func checkChannelsHaveProviders() throws(PhoneAuthError) {
        guard smsProvider == .providers else { return }
        let carried = Set(smsProviders.flatMap(\.channels))
        for channel in channels.channelsUsed.sorted() where !carried.contains(channel) {
            throw Self.bad(
                "channels",
                "sends by \(channel.rawValue), but no entry of sms.providers carries it "
                    + "(add it to an entry's channels)")
        }
    }

    /// A `testPhoneNumbers` object (the engine's, or a tenant's under `code` invalidArgument).
    package static func readTestPhoneNumbers(
        _ numbers: ObjectReader, code: PhoneAuthError.Code = .invalidConfiguration
    ) throws(PhoneAuthError) -> [String: String] {
        func bad(_ key: String, _ problem: String) -> PhoneAuthError { EngineConfig.bad(key, problem, code: code) }
        guard numbers.entries.count <= maxTestPhoneNumbers else {
            throw bad(
                "testPhoneNumbers", "may hold at most \(maxTestPhoneNumbers) numbers; it has \(numbers.entries.count)")
        }
        var result: [String: String] = [:]
        for (number, code) in numbers.entries {
            let phone: PhoneNumber
            do { phone = try PhoneNumber.parse(number) } catch {
                throw bad("testPhoneNumbers", "has an entry that is not a valid phone number (\(error.message))")
            }
            guard case let .string(c) = code, c.utf8.count == 6, c.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                throw bad(
                    "testPhoneNumbers",
                    "must map each number to a code of exactly 6 digits, as a string; \(phone.masked) does not")
            }
            guard result[phone.e164] == nil else { throw bad("testPhoneNumbers", "lists \(phone.masked) twice") }
            result[phone.e164] = c
        }
        return result
    }

    package static let databaseVariable = "PHONEAUTH_DATABASE_URL"

    /// A non-empty environment variable's value (every host reads the environment through this).
    package static func environment(_ name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    /// A setting that cannot be: the configuration's names its key; a call's (`code`
    /// invalidArgument, a tenant's settings) names its field.
    static func bad(
        _ key: String, _ problem: String, code: PhoneAuthError.Code = .invalidConfiguration
    )
        -> PhoneAuthError
    {
        code == .invalidConfiguration
            ? PhoneAuthError(code, "The configuration key '\(key)' \(problem).", details: [("key", .string(key))])
            : PhoneAuthError(code, "The field '\(key)' \(problem).", details: [("field", .string(key))])
    }
}
