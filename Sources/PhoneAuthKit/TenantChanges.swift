import PhoneAuthCore

/// What `createTenant(id:_:)` sets or `updateTenant(_:_:)` changes. A
/// field left nil keeps its value (on creation: no test numbers, the engine's regions, every
/// second factor, the engine's app name); `.some(nil)` clears a setting, as `null` does for the
/// JSON methods. The rules are the JSON methods', with the same refusals
/// (``PhoneAuthError/Code/invalidArgument`` naming the field in `details`).
public struct TenantChanges: Sendable, Hashable {
    /// 4 to 20 letters, digits and hyphens, starting with a letter; required on creation.
    public var displayName: String?
    /// The tenant's test numbers (any format, kept as E.164) and their codes of 6 digits, at most
    /// 10; they replace the tenant's, and `[:]` removes them all.
    public var testPhoneNumbers: [String: String]?
    /// Where its codes may go, on top of the engine's policy; `.some(nil)`: the engine's alone.
    public var smsRegionPolicy: SMSRegionPolicy??
    /// The second factors its users may enrol (`[]`: none); `.some(nil)`: every kind.
    public var secondFactors: Set<SecondFactorKind>??
    /// The app name its SMS texts use; `.some(nil)`: the engine's `sms.appName`.
    public var smsAppName: String??
    /// Its own mode and allow lists of the SMS pumping defense; `.some(nil)`: the engine's alone.
    public var pumping: PumpingSettings??

    /// Changes to the fields given; the others are kept.
    public init(
        displayName: String? = nil, testPhoneNumbers: [String: String]? = nil,
        smsRegionPolicy: SMSRegionPolicy?? = nil, secondFactors: Set<SecondFactorKind>?? = nil,
        smsAppName: String?? = nil, pumping: PumpingSettings?? = nil
    ) {
        self.displayName = displayName
        self.testPhoneNumbers = testPhoneNumbers
        self.smsRegionPolicy = smsRegionPolicy
        self.secondFactors = secondFactors
        self.smsAppName = smsAppName
        self.pumping = pumping
    }

    /// Changes the core read (from a host's JSON, with the JSON methods' refusals).
    package init(_ core: PhoneAuthCore.TenantChanges) {
        displayName = core.displayName
        testPhoneNumbers = core.testPhoneNumbers
        smsRegionPolicy = core.regionPolicy.map { $0.map(SMSRegionPolicy.init) }
        secondFactors = core.secondFactors.map { $0.map { Set($0.map(SecondFactorKind.init)) } }
        smsAppName = core.smsAppName
        pumping = core.pumping.map { $0.map(PumpingSettings.init) }
    }

    /// The same changes as the core's services take them (the pumping allow lists checked here).
    var core: PhoneAuthCore.TenantChanges {
        get throws(PhoneAuthCore.PhoneAuthError) {
            PhoneAuthCore.TenantChanges(
                displayName: displayName, testPhoneNumbers: testPhoneNumbers,
                regionPolicy: smsRegionPolicy.map { $0.map(\.core) },
                secondFactors: secondFactors.map { $0.map { Set($0.map(\.core)) } }, smsAppName: smsAppName,
                pumping: try pumping.map { settings throws(PhoneAuthCore.PhoneAuthError) in try settings?.core })
        }
    }
}
