/// What a captcha verifier installed with `setCaptchaVerifier(checking:)` is asked: the token,
/// the client's address when the call gave one, and the number when the send is to be rated for
/// SMS toll fraud (`pumping.tollFraud`; docs/API.md, "SMS pumping").
public struct CaptchaCheck: Sendable, Hashable {
    /// The token the client sent.
    public let token: String
    /// The client's address, when the call gave one.
    public let clientIP: String?
    /// The number the code is for, when the send is to be rated (E.164).
    public let phoneNumber: String?
}

/// A captcha verifier's answer: whether the provider accepted the token, its score (0 to 1,
/// higher is more likely human) and its toll fraud risk (0 to 1, higher is riskier), each when
/// the provider gives one. A risk outside 0...1 is an answer that cannot be read.
public struct CaptchaAnswer: Sendable, Hashable {
    /// Whether the provider accepted the token.
    public var success: Bool
    /// The provider's score, 0 to 1 (higher is more likely human); below `captcha.minScore`
    /// refuses the token.
    public var score: Double?
    /// How likely the send is SMS toll fraud, 0 to 1 (higher is riskier).
    public var tollFraudRisk: Double?

    /// An answer with the fields given.
    public init(success: Bool, score: Double? = nil, tollFraudRisk: Double? = nil) {
        self.success = success
        self.score = score
        self.tollFraudRisk = tollFraudRisk
    }
}
