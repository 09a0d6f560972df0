/// The built-in captcha verifier's configuration (`captcha.provider`): the service that checks
/// tokens, its secret, and what the answer for a good token must say.
package struct CaptchaProviderSettings: Sendable {
    package enum Kind: String, Sendable, CaseIterable {
        case recaptcha, recaptchaEnterprise, hcaptcha, turnstile
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
            "connectTimeoutMs", "caFile",
        ])
        guard let type = try r.string("type"), let kind = Kind(rawValue: type) else {
            throw EngineConfig.bad(
                "\(path).type", "must be one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let secret = try ProviderSettings.secret(r, "secret", path: path) else {
            throw EngineConfig.bad("\(path).secret", "(or secretEnv) is required")
        }
        var settings = CaptchaProviderSettings(
            kind: kind,
            endpoint: try ProviderSettings.readEndpoint(r, path: path, type: type, defaultUrl: defaultBaseUrl(kind)),
            secret: secret, siteKey: try r.string("siteKey"), projectId: try r.string("projectId"),
            hostname: try r.string("hostname"), action: try r.string("action"))
        if kind == .recaptchaEnterprise {
            guard settings.siteKey != nil else { throw EngineConfig.bad("\(path).siteKey", "is required") }
            guard let project = settings.projectId, Echo.isQuotable(project) else {
                throw EngineConfig.bad("\(path).projectId", "is required: the Google Cloud project of the key")
            }
        }
        return settings
    }
}
