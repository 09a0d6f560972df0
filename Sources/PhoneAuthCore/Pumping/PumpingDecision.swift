/// A decision of the pumping defense about one send it refused (or, in record mode, would have
/// refused): the scope, the rule that tripped and the counts it saw, and until when the scope is
/// blocked. Kept in `pumping_decisions`, told as the event `pumpingSuspected`.
package struct PumpingDecision: Sendable {
    /// What tripped: the unverified codes of the last hour or day over what the scope's verified
    /// history allows, a block an earlier decision set, or the captcha provider's rating of the
    /// send (pumping.tollFraud; its scope is the number's prefix, which it does not block).
    package enum Rule: String, Sendable, CaseIterable {
        case hour, day, blocked, tollFraudRisk
    }

    package enum Action: String, Sendable, CaseIterable {
        /// The send was refused (mode enforce).
        case refused
        /// The send went ahead; it would have been refused (mode record).
        case flagged
        /// No send: an operator lifted the scope's block (liftPumpingBlock).
        case lifted
    }

    package var id = ""
    static let idRandomBytes = 9
    package var at: Timestamp
    package var action: Action
    package var scope: PumpingScope
    package var rule: Rule
    /// The scope's codes sent and verified in the rule's window, and the unverified ones it allows.
    package var sent: Int64
    package var verified: Int64
    package var allowance: Int64
    /// The tollFraudRisk rule's: the send's risk and the start score it met.
    package var risk: Double?
    package var startScore: Double?
    package var until: Timestamp
    /// The destination's region, and the tenant the send was for. Not the number, even masked:
    /// its last digits and a prefix scope would make it whole.
    package var region: String
    package var tenant: TenantID
    /// The channel the code was to go by (sms, whatsapp, voice).
    package var channel: Channel

    package var retryAfterSeconds: Int64 { max(1, (until.milliseconds - at.milliseconds + 999) / 1000) }

    /// The refusal's error: quotaExceeded for a destination (as a region's quota), tooManyRequests
    /// for a client network, captchaCheckFailed for the provider's rating.
    var error: PhoneAuthError {
        if rule == .tollFraudRisk { return CaptchaRefusal.tollFraudRisk.error }
        let what = scope.kind == .network ? "from the network \(scope.name)" : "to \(scope.name)…"
        return PhoneAuthError(
            scope.kind == .network ? .tooManyRequests : .quotaExceeded,
            "Codes \(what) are paused: few of the codes sent recently were entered (suspected SMS pumping); "
                + "try again in \(retryAfterSeconds) seconds.",
            details: [
                ("reason", .string("suspectedPumping")), ("scope", .string(scope.name)),
                ("scopeKind", .string(scope.kind.rawValue)), ("retryAfterSeconds", .int(retryAfterSeconds)),
            ])
    }

    /// As the JSON method `listPumpingDecisions`, the event and the CLI show it (`risk` and
    /// `startScore` for the tollFraudRisk rule only).
    package var fields: [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [
            ("id", .string(id)), ("time", .string(at.rfc3339)), ("action", .string(action.rawValue)),
            ("scopeKind", .string(scope.kind.rawValue)), ("scope", .string(scope.name)),
            ("rule", .string(rule.rawValue)), ("sent", .int(sent)), ("verified", .int(verified)),
            ("allowance", .int(allowance)), ("until", .string(until.rfc3339)),
            ("region", .string(region)), ("tenantId", .string(tenant.text)), ("channel", .string(channel.rawValue)),
        ]
        if let risk, let startScore { fields += [("risk", .double(risk)), ("startScore", .double(startScore))] }
        return fields
    }
}
