import PhoneAuthCore

/// A kind of second factor a tenant's users may enrol (``TenantChanges/secondFactors``).
public enum SecondFactorKind: String, Sendable, Hashable, CaseIterable {
    /// A phone number that receives codes.
    case phone
    /// An authenticator app (TOTP).
    case totp

    var core: FactorKind { self == .phone ? .phone : .totp }

    init(_ kind: FactorKind) { self = kind == .phone ? .phone : .totp }
}
