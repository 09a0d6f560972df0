/// What a captcha verifier installed with `setCaptchaVerifier(checking:)` is asked: the token,
/// the client's address when the call gave one, and the number when the send is to be rated for
/// SMS toll fraud (`pumping.tollFraud`; docs/API.md, "SMS pumping").
public struct CaptchaCheck: Sendable, Hashable {
    public let token: String
    public let clientIP: String?
    public let phoneNumber: String?
}

/// A captcha verifier's answer: whether the provider accepted the token, its score (0 to 1,
/// higher is more likely human) and its toll fraud risk (0 to 1, higher is riskier), each when
/// the provider gives one. A risk outside 0...1 is an answer that cannot be read.
public struct CaptchaAnswer: Sendable, Hashable {
    public var success: Bool
    public var score: Double?
    public var tollFraudRisk: Double?

    public init(success: Bool, score: Double? = nil, tollFraudRisk: Double? = nil) {
        self.success = success
        self.score = score
        self.tollFraudRisk = tollFraudRisk
    }
}
