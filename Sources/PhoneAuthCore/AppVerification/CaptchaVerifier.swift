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
