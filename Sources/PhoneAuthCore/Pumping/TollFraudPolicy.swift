/// Firebase's SMS toll fraud protection, in its own words (`pumping.tollFraud`, a tenant's too):
/// when a captcha token is checked, its provider also rates how likely the send is SMS pumping
/// (reCAPTCHA Enterprise's `smsTollFraudVerdict.risk`, a host verifier's `tollFraudRisk`, 0 to 1),
/// and `tollFraudManagedRules` block a risk at or above a `startScore` under
/// `phoneEnforcementState`. Off by default: each rating is an assessment the provider bills.
package struct TollFraudPolicy: Sendable, Hashable {
    /// AUDIT records what the rules would block and sends; ENFORCE refuses it.
    package enum EnforcementState: String, Sendable, CaseIterable {
        case off = "OFF", audit = "AUDIT", enforce = "ENFORCE"
    }

    /// The fields, as Identity Platform's `recaptchaConfig` names them.
    package static let fields = ["phoneEnforcementState", "useSmsTollFraudProtection", "tollFraudManagedRules"]

    package var phoneEnforcementState = EnforcementState.off
    /// Whether the provider is asked for the risk (with the number, which it rates).
    package var useSmsTollFraudProtection = false
    /// The risks that block: each rule's `startScore` and above (Firebase's only action, BLOCK).
    package var startScores: [Double] = []

    package init(
        phoneEnforcementState: EnforcementState = .off, useSmsTollFraudProtection: Bool = false,
        startScores: [Double] = []
    ) {
        self.phoneEnforcementState = phoneEnforcementState
        self.useSmsTollFraudProtection = useSmsTollFraudProtection
        self.startScores = startScores
    }

    /// Whether a checked token's provider is asked to rate the send.
    var asksRisk: Bool { phoneEnforcementState != .off && useSmsTollFraudProtection }

    /// The rule a send rated `risk` meets (the highest start at or below it), or nil.
    func blockingStart(_ risk: Double?) -> Double? {
        guard asksRisk, let risk else { return nil }
        return startScores.filter { $0 <= risk }.max()
    }

    package var json: JSONValue {
        .object([
            ("phoneEnforcementState", .string(phoneEnforcementState.rawValue)),
            ("useSmsTollFraudProtection", .bool(useSmsTollFraudProtection)),
            (
                "tollFraudManagedRules",
                .array(startScores.map { .object([("startScore", .double($0)), ("action", .string("BLOCK"))]) })
            ),
        ])
    }

    /// The object `o` (the engine's `pumping.tollFraud`, a tenant's, or phoneauthd's
    /// `recaptchaConfig` without its other fields), each field checked.
    package static func read(_ o: ObjectReader) throws(PhoneAuthError) -> TollFraudPolicy {
        try o.rejectUnknown(Set(fields))
        var policy = TollFraudPolicy()
        if let state = try o.string("phoneEnforcementState") {
            guard let s = EnforcementState(rawValue: state) else {
                throw o.refusal("phoneEnforcementState", "must be one of OFF, AUDIT, ENFORCE")
            }
            policy.phoneEnforcementState = s
        }
        policy.useSmsTollFraudProtection = try o.bool("useSmsTollFraudProtection") ?? false
        guard let rules = o.value("tollFraudManagedRules") else { return policy }
        let shape = "must be an array of at most 10 {\"startScore\": 0.0 to 1.0, \"action\": \"BLOCK\"}"
        guard case let .array(items) = rules, items.count <= 10 else { throw o.refusal("tollFraudManagedRules", shape) }
        for item in items {
            guard case let .object(pairs) = item, pairs.count == 2, let start = item["startScore"]?.doubleValue,
                (0...1).contains(start), item["action"] == .string("BLOCK")
            else { throw o.refusal("tollFraudManagedRules", shape) }
            policy.startScores.append(start)
        }
        return policy
    }
}
