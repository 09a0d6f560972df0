import PhoneAuthCore

/// Firebase's SMS toll fraud protection for a tenant (docs/API.md, "SMS pumping"): the captcha
/// provider rates each send whose token it checks, and a risk at or above a start score is
/// blocked (ENFORCE) or recorded (AUDIT).
public struct TollFraudSettings: Sendable, Hashable {
    /// What a rule that a send's risk meets does.
    public enum EnforcementState: String, Sendable, Hashable {
        /// Nothing is rated.
        case off = "OFF"
        /// The send goes ahead, and the decision is recorded.
        case audit = "AUDIT"
        /// The send is refused (`captchaCheckFailed`, reason `tollFraudRisk`) and recorded.
        case enforce = "ENFORCE"
    }

    /// What a rule that a send's risk meets does (Firebase's `phoneEnforcementState`).
    public var phoneEnforcementState: EnforcementState
    /// Whether the provider is asked for the risk (it is sent the number).
    public var useSmsTollFraudProtection: Bool
    /// Each `tollFraudManagedRules` entry's `startScore` (0 to 1); its action is BLOCK.
    public var blockingStartScores: [Double]

    /// Settings with the fields given (none: off, not rated, no rule).
    public init(
        phoneEnforcementState: EnforcementState = .off, useSmsTollFraudProtection: Bool = false,
        blockingStartScores: [Double] = []
    ) {
        self.phoneEnforcementState = phoneEnforcementState
        self.useSmsTollFraudProtection = useSmsTollFraudProtection
        self.blockingStartScores = blockingStartScores
    }

    init(_ core: TollFraudPolicy) {
        self.init(
            phoneEnforcementState: EnforcementState(rawValue: core.phoneEnforcementState.rawValue)!,
            useSmsTollFraudProtection: core.useSmsTollFraudProtection, blockingStartScores: core.startScores)
    }

    var core: TollFraudPolicy {
        TollFraudPolicy(
            phoneEnforcementState: TollFraudPolicy.EnforcementState(rawValue: phoneEnforcementState.rawValue)!,
            useSmsTollFraudProtection: useSmsTollFraudProtection, startScores: blockingStartScores)
    }
}
