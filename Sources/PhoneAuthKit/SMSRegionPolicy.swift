import PhoneAuthCore

/// Where a tenant's codes may go, on top of the engine's `smsRegionPolicy` (a number's region
/// must pass both). Regions are ISO 3166 codes such as `US`, as libphonenumber knows them.
public enum SMSRegionPolicy: Sendable, Hashable {
    /// Every region but these.
    case allowByDefault(disallowedRegions: Set<String>)
    /// These regions only (at least one).
    case allowlistOnly(allowedRegions: Set<String>)

    var core: AbusePolicy.RegionPolicy {
        switch self {
        case let .allowByDefault(disallowed): .allowByDefault(disallowed: disallowed)
        case let .allowlistOnly(allowed): .allowlistOnly(allowed: allowed)
        }
    }

    init(_ policy: AbusePolicy.RegionPolicy) {
        switch policy {
        case let .allowByDefault(disallowed): self = .allowByDefault(disallowedRegions: disallowed)
        case let .allowlistOnly(allowed): self = .allowlistOnly(allowedRegions: allowed)
        }
    }
}
