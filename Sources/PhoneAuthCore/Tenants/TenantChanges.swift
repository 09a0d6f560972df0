/// What createTenant or updateTenant sets: the display name and the settings a tenant has for
/// itself (docs/API.md, "Tenants"). nil keeps a field (on creation: the engine's, no test numbers);
/// `.some(nil)` clears a setting, as `null` does in JSON. Every door builds one of these and the
/// service checks it (`checked`), so each gets the same refusal for the same input.
package struct TenantChanges: Sendable, Equatable {
    /// 4 to 20 letters, digits and hyphens, starting with a letter; required on creation.
    package var displayName: String?
    /// The tenant's own test numbers and their codes (any format `verifyPhoneNumber` takes; kept
    /// as E.164); `[:]` removes them all.
    package var testPhoneNumbers: [String: String]?
    /// Where its codes may go, on top of the engine's policy; `.some(nil)`: the engine's alone.
    package var regionPolicy: AbusePolicy.RegionPolicy??
    /// The second factors its users may enrol; `.some(nil)`: every kind.
    package var secondFactors: Set<FactorKind>??
    /// The app name its SMS texts use; `.some(nil)`: the engine's `sms.appName`.
    package var smsAppName: String??
    /// Its pumping-defense mode and allow lists; `.some(nil)`: the engine's alone.
    package var pumping: TenantPumping??
    /// Its own passkeys settings; `.some(nil)`: the engine's.
    package var passkeys: PasskeySettings??

    package init(
        displayName: String? = nil, testPhoneNumbers: [String: String]? = nil,
        regionPolicy: AbusePolicy.RegionPolicy?? = nil, secondFactors: Set<FactorKind>?? = nil,
        smsAppName: String?? = nil, pumping: TenantPumping?? = nil, passkeys: PasskeySettings?? = nil
    ) {
        self.passkeys = passkeys
        self.displayName = displayName
        self.testPhoneNumbers = testPhoneNumbers
        self.regionPolicy = regionPolicy
        self.secondFactors = secondFactors
        self.smsAppName = smsAppName
        self.pumping = pumping
    }

    /// The display name `r` holds, checked (required when `creating`): the JSON door reads it
    /// first, as it always has.
    package static func displayName(in r: ObjectReader, creating: Bool) throws(PhoneAuthError) -> String? {
        try checkedDisplayName(try r.string("displayName"), required: creating)
    }

    /// The display name and settings `r` holds, in that order, as a JSON object for createTenant
    /// (`creating`) or updateTenant has them (without its `tenantId`).
    package init(_ r: ObjectReader, creating: Bool) throws(PhoneAuthError) {
        displayName = try Self.displayName(in: r, creating: creating)
        try readSettings(r)
    }

    /// The settings `r` holds (an absent key keeps a setting; null clears it), each checked as it
    /// is read; the stored settings are read this way too.
    package init(settingsOf r: ObjectReader) throws(PhoneAuthError) {
        try readSettings(r)
    }

    private mutating func readSettings(_ r: ObjectReader) throws(PhoneAuthError) {
        // ObjectReader.value reads null as absent: here null is a value of its own (clear).
        let given = Dictionary(r.entries, uniquingKeysWith: { first, _ in first })
        if let numbers = given["testPhoneNumbers"] {
            testPhoneNumbers =
                if case .null = numbers { [:] } else {
                    try EngineConfig.readTestPhoneNumbers(
                        try ObjectReader(numbers, path: "testPhoneNumbers"), code: .invalidArgument)
                }
        }
        if let policy = given["smsRegionPolicy"] {
            regionPolicy =
                if case .null = policy { .some(nil) } else {
                    try AbusePolicy.readRegionPolicy(
                        try ObjectReader(policy, path: "smsRegionPolicy"), key: "smsRegionPolicy",
                        code: .invalidArgument)
                }
        }
        if let factors = given["secondFactors"] { secondFactors = .some(try Self.readSecondFactors(factors)) }
        if let name = given["smsAppName"] {
            switch name {
            case .null: smsAppName = .some(nil)
            case let .string(text): smsAppName = .some(try Self.checkedAppName(text))
            default: throw Self.badAppName()
            }
        }
        if let pumping = given["pumping"] {
            self.pumping =
                if case .null = pumping { .some(nil) } else {
                    try TenantPumping.read(try ObjectReader(pumping, path: "pumping"))
                }
        }
        if let passkeys = given["passkeys"] {
            self.passkeys =
                if case .null = passkeys { .some(nil) } else {
                    try PasskeySettings.read(try ObjectReader(passkeys, path: "passkeys"))
                }
        }
    }

    /// The changes with every rule applied, in the order the JSON door reads them: what a typed
    /// caller gave gets the refusal a JSON caller gets. Test numbers come back in E.164.
    package func checked(creating: Bool) throws(PhoneAuthError) -> TenantChanges {
        var checked = self
        checked.displayName = try Self.checkedDisplayName(displayName, required: creating)
        if let numbers = testPhoneNumbers {
            // Sorted, so that of two faults the same one is named every time.
            let pairs = numbers.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }
            checked.testPhoneNumbers = try EngineConfig.readTestPhoneNumbers(
                try ObjectReader(.object(pairs), path: "testPhoneNumbers"), code: .invalidArgument)
        }
        if case let .some(policy?) = regionPolicy {
            checked.regionPolicy = .some(
                try AbusePolicy.readRegionPolicy(
                    try ObjectReader(policy.json, path: "smsRegionPolicy"), key: "smsRegionPolicy",
                    code: .invalidArgument))
        }
        if case let .some(name?) = smsAppName { _ = try Self.checkedAppName(name) }
        if case let .some(pumping?) = pumping {
            checked.pumping = .some(try TenantPumping.read(try ObjectReader(pumping.json, path: "pumping")))
        }
        if case let .some(passkeys?) = passkeys {
            checked.passkeys = .some(try PasskeySettings.read(try ObjectReader(passkeys.json, path: "passkeys")))
        }
        return checked
    }

    /// Applies the settings to `settings` (the display name is the tenant's, not a setting).
    package func apply(to settings: inout TenantSettings) {
        if let testPhoneNumbers { settings.testPhoneNumbers = testPhoneNumbers }
        if let regionPolicy { settings.regionPolicy = regionPolicy }
        if let secondFactors { settings.secondFactors = secondFactors }
        if let smsAppName { settings.smsAppName = smsAppName }
        if let pumping { settings.pumping = pumping }
        if let passkeys { settings.passkeys = passkeys }
    }

    private static func readSecondFactors(_ value: JSONValue) throws(PhoneAuthError) -> Set<FactorKind>? {
        switch value {
        case .null: return nil
        case let .array(items):
            var kinds: Set<FactorKind> = []
            for item in items {
                guard case let .string(name) = item, let kind = FactorKind(rawValue: name) else {
                    throw PhoneAuthError(
                        .invalidArgument, "The field 'secondFactors' must list \"phone\" and \"totp\" only.",
                        details: [("field", .string("secondFactors"))])
                }
                kinds.insert(kind)
            }
            return kinds
        default:
            throw PhoneAuthError(
                .invalidArgument, "The field 'secondFactors' must be an array (or null: every kind).",
                details: [("field", .string("secondFactors"))])
        }
    }

    private static func checkedDisplayName(_ name: String?, required: Bool) throws(PhoneAuthError) -> String? {
        guard let name else {
            if !required { return nil }
            throw PhoneAuthError(
                .invalidArgument, "The field 'displayName' is required.", details: [("field", .string("displayName"))])
        }
        guard Tenant.isDisplayName(name) else {
            throw PhoneAuthError(
                .invalidArgument, "The field 'displayName' \(Tenant.displayNameRule).",
                details: [("field", .string("displayName"))])
        }
        return name
    }

    private static func checkedAppName(_ name: String) throws(PhoneAuthError) -> String {
        guard SMSText.isAppName(name) else { throw badAppName() }
        return name
    }

    private static func badAppName() -> PhoneAuthError {
        PhoneAuthError(
            .invalidArgument, "The field 'smsAppName' \(SMSText.appNameRule).",
            details: [("field", .string("smsAppName"))])
    }
}
