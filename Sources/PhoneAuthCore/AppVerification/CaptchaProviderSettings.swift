/// The built-in captcha verifier's configuration (`captcha.provider`): the service that checks
/// tokens, its secret, and what the answer for a good token must say.
package struct CaptchaProviderSettings: Sendable {
    package enum Kind: String, Sendable, CaseIterable {
        case recaptcha, recaptchaEnterprise, hcaptcha, turnstile
    }

    /// How the page phoneauthd serves asks for a token (`widget`).
    package enum WidgetStyle: String, Sendable {
        case checkbox, score
    }

    package var kind: Kind
    package var endpoint: HTTPEndpoint
    /// The secret key (reCAPTCHA, hCaptcha, Turnstile) or the API key (reCAPTCHA Enterprise).
    var secret: String
    package var siteKey: String?
    /// reCAPTCHA Enterprise: the Google Cloud project of the key.
    package var projectId: String?
    /// What the service must report for a good token, where it reports it.
    package var hostname: String?
    package var action: String?
    /// How the page phoneauthd serves asks for a token: a visible challenge, or (reCAPTCHA v3 and
    /// Enterprise score keys) `execute` with `action`, which shows none.
    package var widget = WidgetStyle.checkbox
    /// Where the page loads the provider's script from, instead of its own address (a mirror, or
    /// a stand-in in tests): its origin is added to the page's Content-Security-Policy.
    package var scriptUrl: String?

    /// The bytes of site keys, and of the language tags phoneauthd's captcha page takes: it writes
    /// both into a URL and its script.
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        ASCII.isLetterOrDigit(byte) || byte == 45 || byte == 95
    }

    /// The service's address when `baseUrl` is not given.
    static func defaultBaseUrl(_ kind: Kind) -> String {
        switch kind {
        case .recaptcha: "https://www.google.com"
        case .recaptchaEnterprise: "https://recaptchaenterprise.googleapis.com"
        case .hcaptcha: "https://api.hcaptcha.com"
        case .turnstile: "https://challenges.cloudflare.com"
        }
    }

    static func read(_ r: ObjectReader) throws(PhoneAuthError) -> CaptchaProviderSettings {
        let path = "captcha.provider"
        try r.rejectUnknown([
            "type", "secret", "secretEnv", "siteKey", "projectId", "hostname", "action", "baseUrl", "timeoutMs",
            "connectTimeoutMs", "caFile", "widget", "scriptUrl",
        ])
        guard let type = try r.string("type"), let kind = Kind(rawValue: type) else {
            throw EngineConfig.bad(
                "\(path).type", "must be one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let secret = try ConfiguredSecret.read(r, "secret", path: path) else {
            throw EngineConfig.bad("\(path).secret", "(or secretEnv) is required")
        }
        var settings = CaptchaProviderSettings(
            kind: kind,
            endpoint: try HTTPEndpoint.read(r, path: path, type: type, defaultUrl: defaultBaseUrl(kind)),
            secret: secret, siteKey: try r.string("siteKey"), projectId: try r.string("projectId"),
            hostname: try r.string("hostname"), action: try r.string("action"))
        if let siteKey = settings.siteKey {
            guard (1...128).contains(siteKey.utf8.count), siteKey.utf8.allSatisfy(isTokenByte) else {
                throw EngineConfig.bad(
                    "\(path).siteKey", "must be the provider's site key: letters, digits, '-' or '_'")
            }
        }
        if let widget = try r.string("widget") {
            guard let style = WidgetStyle(rawValue: widget),
                style == .checkbox || kind == .recaptcha || kind == .recaptchaEnterprise
            else {
                throw EngineConfig.bad(
                    "\(path).widget", "must be \"checkbox\", or \"score\" for recaptcha and recaptchaEnterprise")
            }
            guard style == .checkbox || settings.action != nil else {
                throw EngineConfig.bad("\(path).action", "is required with widget \"score\": the action execute names")
            }
            settings.widget = style
        }
        if let script = try r.string("scriptUrl") {
            let key = "\(path).scriptUrl"
            guard !script.contains("?") else { throw EngineConfig.bad(key, "must not have a query (?...)") }
            settings.scriptUrl = try HTTPEndpoint.checkURL(script, key: key)
        }
        if kind == .recaptchaEnterprise {
            guard settings.siteKey != nil else { throw EngineConfig.bad("\(path).siteKey", "is required") }
            guard let project = settings.projectId, Echo.isQuotable(project) else {
                throw EngineConfig.bad("\(path).projectId", "is required: the Google Cloud project of the key")
            }
        }
        return settings
    }
}
