/// Checks a captcha token (reCAPTCHA, hCaptcha, Turnstile, …) the host's way. nil when the check
/// could not be made (the verifier's own failure).
package protocol CaptchaVerifier: AnyObject, Sendable {
    func verify(token: String, clientIp: String?) -> CaptchaVerdict?
}

package struct CaptchaVerdict: Sendable {
    package var success: Bool
    /// The provider's score (0 to 1, higher is more likely human), when it gives one.
    package var score: Double?
    /// Why the token is refused, when the verifier knows better than "rejected".
    package var refusal: CaptchaRefusal?

    package init(success: Bool, score: Double?) {
        self.success = success
        self.score = score
    }

    package init(refusal: CaptchaRefusal) {
        success = false
        self.refusal = refusal
    }
}

/// Why a captcha token was refused (`captchaCheckFailed`'s `details.reason`).
package enum CaptchaRefusal: String, Sendable, CaseIterable {
    /// No verifier is installed.
    case noVerifier
    /// The token proved an earlier request.
    case alreadyUsed
    /// The verifier could not check it (or answered nothing usable).
    case verifierFailed
    /// The verifier said no.
    case rejected
    /// The score is below `captcha.minScore`.
    case lowScore
    /// The provider says the token is too old (reCAPTCHA and Turnstile: or was used before).
    case expired
    /// The token was solved on another site, or for another action, than `captcha.provider` expects.
    case wrongHostname, wrongAction

    var message: String {
        switch self {
        case .noVerifier: "No captcha verifier is installed (phoneauth_set_captcha_verifier)."
        case .alreadyUsed: "This captcha token was already used; solve a new captcha."
        case .verifierFailed: "The captcha verifier could not check the token."
        case .rejected: "The captcha verifier rejected the token."
        case .lowScore: "The captcha score is below captcha.minScore."
        case .expired: "The captcha token has expired (or was already used); solve a new captcha."
        case .wrongHostname: "The captcha was solved on another site than captcha.provider.hostname."
        case .wrongAction: "The captcha was solved for another action than captcha.provider.action."
        }
    }

    var error: PhoneAuthError {
        PhoneAuthError(.captchaCheckFailed, message, details: [("reason", .string(rawValue))])
    }
}
