import PhoneAuthCore

/// What the captcha page needs to know of each provider's widget: the script that draws it, the
/// JavaScript object that renders it, the options and callbacks its `render` takes, and the
/// origins its script, frames and requests come from (the page's Content-Security-Policy allows
/// those and nothing else).
struct CaptchaWidget: Sendable {
    /// The provider's script, without its query.
    let scriptUrl: String
    /// The global the script defines, as a path: `grecaptcha.enterprise`.
    let api: String
    /// `render`'s options besides the site key and the success callback.
    let options: [(String, JSONValue)]
    /// `render`'s callbacks that end the page, with the `error` each reports.
    let failures: [(String, String)]
    let scriptSources: [String]
    let frameSources: [String]
    let connectSources: [String]
    let styleSources: [String]
    /// Whether the language goes in the script's `hl` parameter (else in the widget's `language`).
    let languageInScript: Bool

    init(_ settings: CaptchaProviderSettings, language: String? = nil) {
        let google = ["https://www.google.com/recaptcha/", "https://www.gstatic.com/recaptcha/"]
        let googleFrames = ["https://www.google.com/recaptcha/", "https://recaptcha.google.com/recaptcha/"]
        let hcaptcha = ["https://hcaptcha.com", "https://*.hcaptcha.com"]
        let cloudflare = ["https://challenges.cloudflare.com"]
        let action = settings.action.map { [("action", JSONValue.string($0))] } ?? []
        var script: String, api: String, options: [(String, JSONValue)] = []
        var failures = [("expired-callback", "expired"), ("error-callback", "failed")]
        var scripts: [String], frames: [String], connects: [String], styles: [String]
        switch settings.kind {
        case .recaptcha:
            (script, api) = ("https://www.google.com/recaptcha/api.js", "grecaptcha")
            (scripts, frames, connects, styles) = (google, googleFrames, [google[0]], [])
        case .recaptchaEnterprise:
            (script, api, options) = ("https://www.google.com/recaptcha/enterprise.js", "grecaptcha.enterprise", action)
            (scripts, frames, connects, styles) = (google, googleFrames, [google[0]], [])
        case .hcaptcha:
            (script, api) = ("https://js.hcaptcha.com/1/api.js", "hcaptcha")
            failures.append(("chalexpired-callback", "expired"))
            (scripts, frames, connects, styles) = (hcaptcha, hcaptcha, hcaptcha, hcaptcha)
        case .turnstile:
            (script, api) = ("https://challenges.cloudflare.com/turnstile/v0/api.js", "turnstile")
            // The page reports each failure to the app, which asks for a new challenge: the widget
            // must not retry or refresh behind it.
            options =
                action + [
                    ("retry", .string("never")), ("refresh-expired", .string("never")),
                    ("refresh-timeout", .string("never")),
                ]
            if let language { options.append(("language", .string(language.lowercased()))) }
            failures.append(("timeout-callback", "expired"))
            (scripts, frames, connects, styles) = (cloudflare, cloudflare, [], [])
        }
        if let mirror = settings.scriptUrl {
            script = mirror
            let origin = Self.origin(of: mirror)
            scripts.append(origin)
            frames.append(origin)
            connects.append(origin)
        }
        (scriptUrl, self.api, self.options, self.failures) = (script, api, options, failures)
        languageInScript = settings.kind != .turnstile
        (scriptSources, frameSources, connectSources, styleSources) = (scripts, frames, connects, styles)
    }

    /// `scheme://host[:port]` of a URL checked by HTTPEndpoint.checkURL.
    static func origin(of url: String) -> String {
        let scheme = url.prefix { $0 != ":" }
        let rest = url.dropFirst(scheme.count + 3)
        return scheme + "://" + rest.prefix { $0 != "/" }
    }
}
