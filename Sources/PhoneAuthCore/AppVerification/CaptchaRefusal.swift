/// Why a captcha token was refused (`captchaCheckFailed`'s `details.reason`).
enum CaptchaRefusal: String, Sendable {
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

    var message: String {
        switch self {
        case .noVerifier: "No captcha verifier is installed (phoneauth_set_captcha_verifier)."
        case .alreadyUsed: "This captcha token was already used; solve a new captcha."
        case .verifierFailed: "The captcha verifier could not check the token."
        case .rejected: "The captcha verifier rejected the token."
        case .lowScore: "The captcha score is below captcha.minScore."
        }
    }

    var error: PhoneAuthError {
        PhoneAuthError(.captchaCheckFailed, message, details: [("reason", .string(rawValue))])
    }
}
