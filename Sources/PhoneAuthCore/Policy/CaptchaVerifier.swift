/// Checks a captcha token (reCAPTCHA, hCaptcha, Turnstile, …) the host's way. nil when the check
/// could not be made (the verifier's own failure).
public protocol CaptchaVerifier: AnyObject, Sendable {
    func verify(token: String, clientIp: String?) -> CaptchaVerdict?
}

public struct CaptchaVerdict: Sendable {
    public var success: Bool
    /// The provider's score (0 to 1, higher is more likely human), when it gives one.
    public var score: Double?

    public init(success: Bool, score: Double?) {
        self.success = success
        self.score = score
    }
}
