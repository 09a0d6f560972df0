#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PhoneAuthCore

/// A decision of the SMS pumping defense (docs/API.md, "SMS pumping"): a send it refused, or in
/// record mode would have refused. Read with `pumpingDecisions(maxResults:pageToken:)`.
/// It names the scope, never the number.
public struct PumpingDecision: Sendable, Hashable {
    /// What the defense did with the send.
    public enum Action: String, Sendable, Hashable {
        /// Refused it (mode enforce).
        case refused
        /// Sent it; it would have been refused (mode record).
        case flagged
        /// No send: an operator lifted the scope's block (the JSON method `liftPumpingBlock`).
        case lifted
    }

    /// What kind of scope tripped.
    public enum ScopeKind: String, Sendable, Hashable {
        /// The number without its last 4 digits.
        case prefix
        /// The number's region.
        case country
        /// The client's IPv4 /24 or IPv6 /48.
        case network
    }

    /// The rule that tripped.
    public enum Rule: String, Sendable, Hashable {
        /// Unentered codes of the last hour over the allowance.
        case hour
        /// Unentered codes of the last day over the allowance.
        case day
        /// The scope was blocked by an earlier decision.
        case blocked
        /// The captcha provider rated the send at or above a blocking rule's start score
        /// (`pumping.tollFraud`); the scope is the number's prefix, which it does not block.
        case tollFraudRisk
    }

    /// Its ID, which begins with its time; the page token of the next page when it is a page's last.
    public let id: String
    /// When it was made.
    public let time: Date
    /// What was done with the send.
    public let action: Action
    /// What kind of scope tripped.
    public let scopeKind: ScopeKind
    /// The scope: `+99890123`, `UZ` or `198.51.100.0/24`.
    public let scope: String
    /// The rule that tripped.
    public let rule: Rule
    /// The scope's codes sent in the rule's window.
    public let sent: Int
    /// The scope's codes entered in the rule's window.
    public let verified: Int
    /// The unentered codes the scope's history allows in the window.
    public let allowance: Int
    /// The `tollFraudRisk` rule's: the send's risk (0 to 1).
    public let risk: Double?
    /// The `tollFraudRisk` rule's: the start score the risk met.
    public let startScore: Double?
    /// Until when the scope is blocked.
    public let until: Date
    /// The destination's region (ISO 3166, `US`).
    public let region: String
    /// The tenant the send was for; nil: the default pool.
    public let tenantID: String?
    /// The channel the code was to go by.
    public let channel: DeliveryChannel

    /// The core's decision (its enums have these cases, word for word).
    init(_ decision: PhoneAuthCore.PumpingDecision) {
        id = decision.id
        time = Date(decision.at)
        action = Action(rawValue: decision.action.rawValue)!
        scopeKind = ScopeKind(rawValue: decision.scope.kind.rawValue)!
        scope = decision.scope.name
        rule = Rule(rawValue: decision.rule.rawValue)!
        sent = Int(decision.sent)
        verified = Int(decision.verified)
        allowance = Int(decision.allowance)
        risk = decision.risk
        startScore = decision.startScore
        until = Date(decision.until)
        region = decision.region
        tenantID = decision.tenant.named
        channel = DeliveryChannel(decision.channel)
    }
}
