/// What an app check is, as the `app_checks.kind` column holds it.
package enum AppCheckKind: String, Sendable, CaseIterable {
    /// A push receipt, proved by the secret the silent push carried.
    case receipt
    /// A captcha challenge issued for a callback scheme.
    case captcha
    /// A captcha token already presented (by its hash): each proves one request.
    case captchaToken
}
