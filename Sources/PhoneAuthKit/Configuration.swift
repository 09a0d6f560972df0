import PhoneAuthCore

extension PhoneAuth {
    /// The engine's settings most apps change. Left nil, a setting has its default (docs/API.md,
    /// "Configuration"); every other key, SMS providers included, goes through
    /// `init(json:)`. Values are checked when the engine opens: a bad one throws
    /// `invalidConfiguration` whose details name the key.
    public struct Configuration: Sendable {
        /// A SQLite file (created if missing) or a `postgresql://` URI.
        public var database: String
        /// The ID tokens' audience (`aud`).
        public var projectID: String?
        /// The ID tokens' issuer (`iss`).
        public var issuer: String?
        /// 32 bytes, base64 or 64 hex digits, that encrypt the keys kept in the database. Nil: the
        /// environment's `PHONEAUTH_MASTER_KEY`, else a key file beside a SQLite database.
        public var masterKey: String?
        /// `ES256` (default), `RS256` or `EdDSA`.
        public var signingAlgorithm: String?
        /// An ID token's lifetime, in seconds (60–86400; default 3600).
        public var idTokenTtlSeconds: Int?
        /// Digits in a code (6–10).
        public var codeLength: Int?
        /// How long a code works, in seconds (1–3600; default 300).
        public var codeTtlSeconds: Int?
        /// Wrong codes before a verification is dead.
        public var maxAttempts: Int?
        /// How long asking again for a number returns the same verification (default 60 s).
        public var resendAfterSeconds: Int?
        /// The SMS's language when a call gives none or an unknown one.
        public var defaultLanguageCode: String?
        /// Fictional numbers and their fixed codes (`["+16505551234": "123456"]`): no SMS is sent
        /// for them. For tests and app review.
        public var testPhoneNumbers: [String: String] = [:]
        /// Only test numbers are accepted, without app verification.
        public var appVerificationDisabledForTesting: Bool?
        /// How the SMS is sent and what it says.
        public var sms = SMS()

        /// The defaults, with the database (a SQLite path or a `postgresql://` URI).
        public init(database: String) { self.database = database }

        /// The SMS settings (docs/API.md, "SMS text").
        public struct SMS: Sendable {
            /// `callback` (`setSMSSender(_:)`, the default) or `console` (stderr).
            public var provider: String?
            /// The app's name, which the built-in texts then name.
            public var appName: String?
            /// `[languageTag: template]` with `{code}` once, and `{appName}`, `{minutes}`.
            public var templates: [String: String] = [:]
            /// Adds the `@domain #code` line of WebOTP and iOS autofill.
            public var originBoundDomain: String?
            /// Adds the Android SMS Retriever's app hash.
            public var androidAppHash: String?
            /// The most SMS segments a message may take.
            public var maxSegments: Int?

            /// No SMS settings: the defaults.
            public init() {}
        }

        /// The configuration as `phoneauth_open`'s JSON.
        var jsonValue: JSONValue {
            var o = JSONObjectBuilder()
            o.set("database", .string(database))
            o.set("projectId", projectID.map { .string($0) })
            o.set("issuer", issuer.map { .string($0) })
            o.set("masterKey", masterKey.map { .string($0) })
            o.set("signingAlgorithm", signingAlgorithm.map { .string($0) })
            o.set("idTokenTtlSeconds", idTokenTtlSeconds.map { .int(Int64($0)) })
            o.set("codeLength", codeLength.map { .int(Int64($0)) })
            o.set("codeTtlSeconds", codeTtlSeconds.map { .int(Int64($0)) })
            o.set("maxAttempts", maxAttempts.map { .int(Int64($0)) })
            o.set("resendAfterSeconds", resendAfterSeconds.map { .int(Int64($0)) })
            o.set("defaultLanguageCode", defaultLanguageCode.map { .string($0) })
            if !testPhoneNumbers.isEmpty {
                o.set(
                    "testPhoneNumbers",
                    .object(testPhoneNumbers.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
            }
            o.set(
                "appVerification",
                appVerificationDisabledForTesting.map { .object([("disabledForTesting", .bool($0))]) })
            var s = JSONObjectBuilder()
            s.set("provider", sms.provider.map { .string($0) })
            s.set("appName", sms.appName.map { .string($0) })
            if !sms.templates.isEmpty {
                s.set(
                    "templates", .object(sms.templates.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
            }
            s.set("originBoundDomain", sms.originBoundDomain.map { .string($0) })
            s.set("androidAppHash", sms.androidAppHash.map { .string($0) })
            s.set("maxSegments", sms.maxSegments.map { .int(Int64($0)) })
            o.set("sms", s.value)
            return o.value
        }
    }
}
