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

    /// Reads and validates a configuration object; every error names the offending key.
    package static func read(_ json: JSONValue) throws(PhoneAuthError) -> EngineConfig {
        let r = try ObjectReader(json, code: .invalidConfiguration, what: "configuration")
        try r.rejectUnknown([
            "database", "projectId", "issuer", "masterKey", "signingAlgorithm", "idTokenTtlSeconds",
            "refreshReuseIntervalSeconds", "signInRetrySeconds", "signingKeyRotationDays",
            "codeLength", "codeTtlSeconds", "maxAttempts", "resendAfterSeconds", "defaultLanguageCode",
            "testPhoneNumbers", "appVerification", "sms", "sqliteSynchronous", "mfa",
            "quotas", "smsRegionPolicy", "phoneNumberTypes", "captcha", "postgres", "hooks", "events",
            "channels", "voice",
        ])
        guard let database = try r.string("database") ?? environment(databaseVariable), !database.isEmpty else {
            throw PhoneAuthError(
                .invalidConfiguration,
                "The configuration key 'database' (a SQLite file's path or a postgresql:// URI) is required, "
                    + "unless \(databaseVariable) gives it.",
                details: [("key", .string("database"))])
        }
        var c = EngineConfig(database: database)
        var configuredConnectTimeout: Int?
        if let postgres = try r.object("postgres") {
            try postgres.rejectUnknown(["poolSize", "schema", "connectTimeoutSeconds", "statementTimeoutMs"])
            c.postgres.poolSize = Int(try postgres.int("poolSize", in: 1...100) ?? Int64(c.postgres.poolSize))
            if let schema = try postgres.string("schema") {
                guard PostgresSettings.isValidSchema(schema) else {
                    throw bad(
                        "postgres.schema", "must be 1 to 63 lower-case letters, digits and _, not starting with a digit"
                    )
                }
                c.postgres.schema = schema
            }
            configuredConnectTimeout = try postgres.int("connectTimeoutSeconds", in: 1...300).map { Int($0) }
            c.postgres.connectTimeoutSeconds = configuredConnectTimeout ?? c.postgres.connectTimeoutSeconds
            c.postgres.statementTimeoutMs = Int(
                try postgres.int("statementTimeoutMs", in: 100...600_000) ?? Int64(c.postgres.statementTimeoutMs))
        }
        if PostgresSettings.isURI(database) {
            c.postgres.uri = database
            try c.postgres.adoptURIParameters(configuredConnectTimeout: configuredConnectTimeout)
        }
        if let v = try r.string("projectId") {
            guard !v.isEmpty, v.utf8.count <= 128 else { throw bad("projectId", "must be 1 to 128 characters") }
            c.projectId = v
        }
        if let v = try r.string("issuer") {
            guard !v.isEmpty, v.utf8.count <= 512 else { throw bad("issuer", "must be 1 to 512 characters") }
            c.issuer = v
        }
        if let v = try r.string("masterKey") {
            c.masterKey = try MasterKey.decode(v, source: "configuration key 'masterKey'")
        }
        if let v = try r.string("signingAlgorithm") {
            guard let a = SigningAlgorithm(rawValue: v) else {
                throw bad("signingAlgorithm", "must be ES256, RS256 or EdDSA")
            }
            c.signingAlgorithm = a
        }
        c.idTokenTtlSeconds = try r.int("idTokenTtlSeconds", in: 60...86_400) ?? c.idTokenTtlSeconds
        c.signingKeyRotationDays = try r.int("signingKeyRotationDays", in: 0...3650) ?? 0
        c.refreshReuseIntervalSeconds =
            try r.int("refreshReuseIntervalSeconds", in: 0...300) ?? c.refreshReuseIntervalSeconds
        c.signInRetrySeconds = try r.int("signInRetrySeconds", in: 0...300) ?? c.signInRetrySeconds
        c.codeLength = Int(try r.int("codeLength", in: 6...10) ?? Int64(c.codeLength))
        c.codeTtlSeconds = try r.int("codeTtlSeconds", in: 1...3600) ?? c.codeTtlSeconds
        c.maxAttempts = Int(try r.int("maxAttempts", in: 1...20) ?? Int64(c.maxAttempts))
        c.resendAfterSeconds = try r.int("resendAfterSeconds", in: 0...3600) ?? c.resendAfterSeconds
        // Checked once sms.templates is read: a host template's language may be the default.
        let defaultLanguage = try r.string("defaultLanguageCode")
        if let numbers = try r.object("testPhoneNumbers") {
            c.testPhoneNumbers = try readTestPhoneNumbers(numbers)
        }
        if let app = try r.object("appVerification") {
            try app.rejectUnknown([
                "disabledForTesting", "enforce", "pushTimeoutSeconds", "receiptTtlSeconds", "pushWebhook",
            ])
            if let webhook = try app.object("pushWebhook") {
                c.pushWebhook = try ProviderSettings.readWebhook(webhook, path: "appVerification.pushWebhook")
            }
            c.appVerificationDisabledForTesting = try app.bool("disabledForTesting") ?? false
            c.appVerificationEnforce = try app.bool("enforce")
            c.pushTimeoutSeconds = try app.int("pushTimeoutSeconds", in: 1...120) ?? c.pushTimeoutSeconds
            c.receiptTtlSeconds = try app.int("receiptTtlSeconds", in: 30...3600) ?? c.receiptTtlSeconds
        }
        if let events = try r.object("events") { c.events = try EventSettings.read(events) }
        if let hooks = try r.object("hooks") {
            try hooks.rejectUnknown(Set(HookName.allCases.map(\.rawValue)))
            for name in HookName.allCases {
                if let hook = try hooks.object(name.rawValue) {
                    c.hooks[name] = try HookSettings.read(hook, name: name)
                }
            }
        }
        if let captcha = try r.object("captcha") {
            try captcha.rejectUnknown(["pageUrl", "minScore", "provider"])
            if let provider = try captcha.object("provider") {
                c.captchaProvider = try CaptchaProviderSettings.read(provider)
            }
            if let url = try captcha.string("pageUrl") {
                guard url.hasPrefix("https://") || url.hasPrefix("http://"), url.utf8.count <= 2048, !url.contains("#")
                else {
                    throw bad("captcha.pageUrl", "must be an http(s) URL without a fragment")
                }
                c.captchaPageUrl = url
            }
            if let score = captcha.value("minScore") {
                let value: Double
                switch score {
                case let .int(i): value = Double(i)
                case let .double(d): value = d
                default: throw bad("captcha.minScore", "must be a number between 0 and 1")
                }
                guard (0...1).contains(value) else { throw bad("captcha.minScore", "must be a number between 0 and 1") }
                c.captchaMinScore = value
            }
        }
        if let sms = try r.object("sms") {
            try sms.rejectUnknown([
                "provider", "providers", "maxAttempts", "retryBackoffMs", "concurrency", "breaker",
                "appName", "templates", "originBoundDomain", "androidAppHash", "maxSegments",
            ])
            c.smsAppName = try sms.string("appName")
            c.smsOriginBoundDomain = try sms.string("originBoundDomain")
            c.smsAndroidAppHash = try sms.string("androidAppHash")
            c.smsMaxSegments = Int(try sms.int("maxSegments", in: 1...10) ?? Int64(c.smsMaxSegments))
            if let templates = try sms.object("templates") {
                for (tag, value) in templates.entries {
                    guard case let .string(text) = value else { throw bad("sms.templates.\(tag)", "must be a string") }
                    c.smsTemplates[tag] = text
                }
            }
            if let v = try sms.string("provider") {
                guard let p = SMSProviderKind(rawValue: v), p != .providers else {
                    throw bad("sms.provider", "must be \"callback\" or \"console\"")
                }
                c.smsProvider = p
            }
            if let list = sms.value("providers") {
                guard sms.value("provider") == nil else {
                    throw bad(
                        "sms.providers",
                        "cannot be given with sms.provider: give the callback or console provider, "
                            + "or a list of HTTP providers"
                    )
                }
                c.smsProviders = try ProviderSettings.read(list)
                c.smsProvider = .providers
            }
            c.smsConcurrency = try sms.int("concurrency", in: 1...256).map { Int($0) }
            if let breaker = try sms.object("breaker") {
                try breaker.rejectUnknown(["failures", "seconds"])
                c.smsBreakerFailures = Int(try breaker.int("failures", in: 1...100) ?? Int64(c.smsBreakerFailures))
                c.smsBreakerSeconds = try breaker.int("seconds", in: 1...3600) ?? c.smsBreakerSeconds
            }
            c.smsMaxAttempts = Int(try sms.int("maxAttempts", in: 1...20) ?? Int64(c.smsMaxAttempts))
            c.smsRetryBackoffMs = try sms.int("retryBackoffMs", in: 10...3_600_000) ?? c.smsRetryBackoffMs
        }
        if let v = defaultLanguage {
            let hostLanguages = Set(c.smsTemplates.keys.map(SMSTemplates.canonical))
            let language = SMSTemplates.resolve(
                v, fallback: "", known: { SMSTemplates.templates[$0] != nil || hostLanguages.contains($0) })
            guard !language.isEmpty else {
                let known = hostLanguages.union(SMSTemplates.languages).sorted().joined(separator: ", ")
                throw bad(
                    "defaultLanguageCode", "must be one of \(known) (the built-in languages and those of sms.templates)"
                )
            }
            c.defaultLanguageCode = language
        }
        if let mfa = try r.object("mfa") {
            try mfa.rejectUnknown(["recentSignInSeconds", "maxFactors", "sessionTtlSeconds"])
            c.mfaRecentSignInSeconds = try mfa.int("recentSignInSeconds", in: 10...86_400) ?? c.mfaRecentSignInSeconds
            c.mfaMaxFactors = Int(try mfa.int("maxFactors", in: 1...20) ?? Int64(c.mfaMaxFactors))
            c.mfaSessionTtlSeconds = try mfa.int("sessionTtlSeconds", in: 30...3600) ?? c.mfaSessionTtlSeconds
        }
        c.abuse = try AbusePolicy.read(r)
        if let channels = try r.object("channels") { c.channels = try ChannelSettings.read(channels) }
        if let voice = try r.object("voice") {
            try voice.rejectUnknown(["templates"])
            if let templates = try voice.object("templates") {
                for (tag, value) in templates.entries {
                    guard case let .string(text) = value else { throw bad("voice.templates.\(tag)", "must be a string") }
                    c.voiceTemplates[tag] = text
                }
            }
        }
        try c.checkChannelsHaveProviders()
        if let v = try r.string("sqliteSynchronous") {
            guard let s = Synchronous(rawValue: v) else {
                throw bad("sqliteSynchronous", "must be \"normal\" or \"full\"")
            }
            c.sqliteSynchronous = s
        }
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
                "sends by \(channel.rawValue), but no entry of sms.providers carries it (add it to an entry's channels)")
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
