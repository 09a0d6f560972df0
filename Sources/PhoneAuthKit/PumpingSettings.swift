import PhoneAuthCore

/// A tenant's own settings of the SMS pumping defense, over the engine's `pumping` (docs/API.md,
/// "SMS pumping"): a mode of its own, allow lists added to the engine's, and toll fraud rules. The counts and the
/// rules stay the engine's: a prefix, a country or a network is one scope for every tenant.
public struct PumpingSettings: Sendable, Hashable {
    /// What a tripped rule does for the tenant's sends.
    public enum Mode: String, Sendable, Hashable {
        /// Refuse the send (the engine's default).
        case enforce
        /// Record the decision and send.
        case record
        /// Neither judge nor count the tenant's sends.
        case off
    }

    /// nil: the engine's mode.
    public var mode: Mode?
    /// Destinations never judged nor counted: E.164 starts such as `+44` or `+1415`.
    public var allowPrefixes: [String]
    /// Client networks never judged nor counted, in CIDR notation (`198.51.100.0/24`).
    public var allowNetworks: [String]
    /// nil: the engine's toll fraud rules.
    public var tollFraud: TollFraudSettings?

    /// Settings with the fields given (none: the engine's mode and no allow list of its own).
    public init(
        mode: Mode? = nil, allowPrefixes: [String] = [], allowNetworks: [String] = [],
        tollFraud: TollFraudSettings? = nil
    ) {
        self.mode = mode
        self.allowPrefixes = allowPrefixes
        self.allowNetworks = allowNetworks
        self.tollFraud = tollFraud
    }

    init(_ core: TenantPumping) {
        mode = core.mode.flatMap { Mode(rawValue: $0.rawValue) }
        allowPrefixes = core.allowPrefixes
        allowNetworks = core.allowNetworks.map(\.text)
        tollFraud = core.tollFraud.map(TollFraudSettings.init)
    }

    /// The core's settings, read with the JSON methods' checks (and refusals).
    var core: TenantPumping {
        get throws(PhoneAuthCore.PhoneAuthError) {
            try TenantPumping.checked(
                mode: mode.map { PumpingPolicy.Mode(rawValue: $0.rawValue)! }, allowPrefixes: allowPrefixes,
                allowNetworks: allowNetworks, tollFraud: tollFraud?.core)
        }
    }
}
