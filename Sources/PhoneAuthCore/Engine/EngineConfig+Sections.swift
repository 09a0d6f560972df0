/// The readers of EngineConfig.read, one per section of the configuration object. Each checks its
/// keys in the order read always has, so that the first bad key reported does not change.
extension EngineConfig {
    /// `database`, or the environment's PHONEAUTH_DATABASE_URL.
    static func readDatabase(_ r: ObjectReader) throws(PhoneAuthError) -> String {
        guard let database = try r.string("database") ?? environment(databaseVariable), !database.isEmpty else {
            throw PhoneAuthError(
                .invalidConfiguration,
                "The configuration key 'database' (a SQLite file's path or a postgresql:// URI) is required, "
                    + "unless \(databaseVariable) gives it.",
                details: [("key", .string("database"))])
        }
        return database
    }

    /// `postgres`, then the parameters of a postgresql:// `database` URI (a configured connect
    /// timeout wins over the URI's).
    mutating func readPostgres(_ r: ObjectReader) throws(PhoneAuthError) {
        var configuredConnectTimeout: Int?
        if let postgres = try r.object("postgres") {
            try postgres.rejectUnknown(["poolSize", "schema", "connectTimeoutSeconds", "statementTimeoutMs"])
            self.postgres.poolSize = Int(try postgres.int("poolSize", in: 1...100) ?? Int64(self.postgres.poolSize))
            if let schema = try postgres.string("schema") {
                guard PostgresSettings.isValidSchema(schema) else {
                    throw Self.bad(
                        "postgres.schema", "must be 1 to 63 lower-case letters, digits and _, not starting with a digit"
                    )
                }
                self.postgres.schema = schema
            }
            configuredConnectTimeout = try postgres.int("connectTimeoutSeconds", in: 1...300).map { Int($0) }
            self.postgres.connectTimeoutSeconds = configuredConnectTimeout ?? self.postgres.connectTimeoutSeconds
            self.postgres.statementTimeoutMs = Int(
                try postgres.int("statementTimeoutMs", in: 100...600_000) ?? Int64(self.postgres.statementTimeoutMs))
        }
        if PostgresSettings.isURI(database) {
            self.postgres.uri = database
            try self.postgres.adoptURIParameters(configuredConnectTimeout: configuredConnectTimeout)
        }
    }

    /// `projectId`, `issuer`, `masterKey`, `signingAlgorithm`: who signs the tokens, and with what.
    mutating func readIdentity(_ r: ObjectReader) throws(PhoneAuthError) {
        if let v = try r.string("projectId") {
            guard !v.isEmpty, v.utf8.count <= 128 else { throw Self.bad("projectId", "must be 1 to 128 characters") }
            projectId = v
        }
        if let v = try r.string("issuer") {
            guard !v.isEmpty, v.utf8.count <= 512 else { throw Self.bad("issuer", "must be 1 to 512 characters") }
            issuer = v
        }
        if let v = try r.string("masterKey") {
            masterKey = try MasterKey.decode(v, source: "configuration key 'masterKey'")
        }
        if let v = try r.string("signingAlgorithm") {
            guard let a = SigningAlgorithm(rawValue: v) else {
                throw Self.bad("signingAlgorithm", "must be ES256, RS256 or EdDSA")
            }
            signingAlgorithm = a
        }
    }

    /// The tokens' and sessions' lifetimes.
    mutating func readTokens(_ r: ObjectReader) throws(PhoneAuthError) {
        idTokenTtlSeconds = try r.int("idTokenTtlSeconds", in: 60...86_400) ?? idTokenTtlSeconds
        signingKeyRotationDays = try r.int("signingKeyRotationDays", in: 0...3650) ?? 0
        refreshReuseIntervalSeconds =
            try r.int("refreshReuseIntervalSeconds", in: 0...300) ?? refreshReuseIntervalSeconds
        signInRetrySeconds = try r.int("signInRetrySeconds", in: 0...300) ?? signInRetrySeconds
    }

    /// The verification codes: their length, lifetime, tries and resend interval.
    mutating func readCodes(_ r: ObjectReader) throws(PhoneAuthError) {
        codeLength = Int(try r.int("codeLength", in: 6...10) ?? Int64(codeLength))
        codeTtlSeconds = try r.int("codeTtlSeconds", in: 1...3600) ?? codeTtlSeconds
        maxAttempts = Int(try r.int("maxAttempts", in: 1...20) ?? Int64(maxAttempts))
        resendAfterSeconds = try r.int("resendAfterSeconds", in: 0...3600) ?? resendAfterSeconds
    }

    /// `appVerification`.
    mutating func readAppVerification(_ app: ObjectReader) throws(PhoneAuthError) {
        try app.rejectUnknown([
            "disabledForTesting", "enforce", "pushTimeoutSeconds", "receiptTtlSeconds", "pushWebhook",
        ])
        if let webhook = try app.object("pushWebhook") {
            pushWebhook = try ProviderSettings.readWebhook(webhook, path: "appVerification.pushWebhook")
        }
        appVerificationDisabledForTesting = try app.bool("disabledForTesting") ?? false
        appVerificationEnforce = try app.bool("enforce")
        pushTimeoutSeconds = try app.int("pushTimeoutSeconds", in: 1...120) ?? pushTimeoutSeconds
        receiptTtlSeconds = try app.int("receiptTtlSeconds", in: 30...3600) ?? receiptTtlSeconds
    }

    /// `hooks`: each blocking hook's settings, in HookName's order.
    static func readHooks(_ hooks: ObjectReader) throws(PhoneAuthError) -> [HookName: HookSettings] {
        try hooks.rejectUnknown(Set(HookName.allCases.map(\.rawValue)))
        var result: [HookName: HookSettings] = [:]
        for name in HookName.allCases {
            if let hook = try hooks.object(name.rawValue) {
                result[name] = try HookSettings.read(hook, name: name)
            }
        }
        return result
    }

    /// `captcha`.
    mutating func readCaptcha(_ captcha: ObjectReader) throws(PhoneAuthError) {
        try captcha.rejectUnknown(["pageUrl", "minScore", "provider"])
        if let provider = try captcha.object("provider") {
            captchaProvider = try CaptchaProviderSettings.read(provider)
        }
        if let url = try captcha.string("pageUrl") {
            guard url.hasPrefix("https://") || url.hasPrefix("http://"), url.utf8.count <= 2048, !url.contains("#")
            else {
                throw Self.bad("captcha.pageUrl", "must be an http(s) URL without a fragment")
            }
            captchaPageUrl = url
        }
        if let score = captcha.value("minScore") {
            let value: Double
            switch score {
            case let .int(i): value = Double(i)
            case let .double(d): value = d
            default: throw Self.bad("captcha.minScore", "must be a number between 0 and 1")
            }
            guard (0...1).contains(value) else {
                throw Self.bad("captcha.minScore", "must be a number between 0 and 1")
            }
            captchaMinScore = value
        }
    }

    /// `sms`: the texts, then the provider (the callback, the console, or a list of HTTP
    /// providers), then how messages are sent.
    mutating func readSMS(_ sms: ObjectReader) throws(PhoneAuthError) {
        try sms.rejectUnknown([
            "provider", "providers", "maxAttempts", "retryBackoffMs", "concurrency", "breaker",
            "appName", "templates", "originBoundDomain", "androidAppHash", "maxSegments",
        ])
        smsAppName = try sms.string("appName")
        smsOriginBoundDomain = try sms.string("originBoundDomain")
        smsAndroidAppHash = try sms.string("androidAppHash")
        smsMaxSegments = Int(try sms.int("maxSegments", in: 1...10) ?? Int64(smsMaxSegments))
        if let templates = try sms.object("templates") {
            smsTemplates = try Self.readTemplates(templates, path: "sms.templates")
        }
        if let v = try sms.string("provider") {
            guard let p = SMSProviderKind(rawValue: v), p != .providers else {
                throw Self.bad("sms.provider", "must be \"callback\" or \"console\"")
            }
            smsProvider = p
        }
        if let list = sms.value("providers") {
            guard sms.value("provider") == nil else {
                throw Self.bad(
                    "sms.providers",
                    "cannot be given with sms.provider: give the callback or console provider, "
                        + "or a list of HTTP providers"
                )
            }
            smsProviders = try ProviderSettings.read(list)
            smsProvider = .providers
        }
        smsConcurrency = try sms.int("concurrency", in: 1...256).map { Int($0) }
        if let breaker = try sms.object("breaker") {
            try breaker.rejectUnknown(["failures", "seconds"])
            smsBreakerFailures = Int(try breaker.int("failures", in: 1...100) ?? Int64(smsBreakerFailures))
            smsBreakerSeconds = try breaker.int("seconds", in: 1...3600) ?? smsBreakerSeconds
        }
        smsMaxAttempts = Int(try sms.int("maxAttempts", in: 1...20) ?? Int64(smsMaxAttempts))
        smsRetryBackoffMs = try sms.int("retryBackoffMs", in: 10...3_600_000) ?? smsRetryBackoffMs
    }

    /// `sms.templates` or `voice.templates`: {language tag: template}, each a string.
    static func readTemplates(_ templates: ObjectReader, path: String) throws(PhoneAuthError) -> [String: String] {
        var result: [String: String] = [:]
        for (tag, value) in templates.entries {
            guard case let .string(text) = value else { throw bad("\(path).\(tag)", "must be a string") }
            result[tag] = text
        }
        return result
    }

    /// `defaultLanguageCode`: a built-in language or one of sms.templates (so read after them).
    func resolveDefaultLanguage(_ v: String) throws(PhoneAuthError) -> String {
        let hostLanguages = Set(smsTemplates.keys.map(SMSTemplates.canonical))
        let language = SMSTemplates.resolve(
            v, fallback: "", known: { SMSTemplates.templates[$0] != nil || hostLanguages.contains($0) })
        guard !language.isEmpty else {
            let known = hostLanguages.union(SMSTemplates.languages).sorted().joined(separator: ", ")
            throw Self.bad(
                "defaultLanguageCode", "must be one of \(known) (the built-in languages and those of sms.templates)"
            )
        }
        return language
    }

    /// `mfa`.
    mutating func readMFA(_ mfa: ObjectReader) throws(PhoneAuthError) {
        try mfa.rejectUnknown(["recentSignInSeconds", "maxFactors", "sessionTtlSeconds"])
        mfaRecentSignInSeconds = try mfa.int("recentSignInSeconds", in: 10...86_400) ?? mfaRecentSignInSeconds
        mfaMaxFactors = Int(try mfa.int("maxFactors", in: 1...20) ?? Int64(mfaMaxFactors))
        mfaSessionTtlSeconds = try mfa.int("sessionTtlSeconds", in: 30...3600) ?? mfaSessionTtlSeconds
    }

    /// `voice`: its templates.
    static func readVoice(_ voice: ObjectReader) throws(PhoneAuthError) -> [String: String] {
        try voice.rejectUnknown(["templates"])
        guard let templates = try voice.object("templates") else { return [:] }
        return try readTemplates(templates, path: "voice.templates")
    }

    /// `sqliteSynchronous`.
    static func readSynchronous(_ v: String) throws(PhoneAuthError) -> Synchronous {
        guard let s = Synchronous(rawValue: v) else {
            throw bad("sqliteSynchronous", "must be \"normal\" or \"full\"")
        }
        return s
    }
}
