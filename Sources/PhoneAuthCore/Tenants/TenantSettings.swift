/// What a tenant sets for itself; everything else comes from the engine's configuration.
/// Stored as JSON text in `tenants.settings`; read from and shown to every door in the same shape.
package struct TenantSettings: Sendable, Equatable {
    /// The tenant's own fictional numbers and their fixed codes. The engine's `testPhoneNumbers`
    /// serve the default pool only: a tenant's test number is no test number elsewhere.
    package var testPhoneNumbers: [String: String] = [:]
    /// Where the tenant's codes may go, on top of the engine's `smsRegionPolicy` (a region must
    /// pass both: the operator's policy protects the bill of every tenant). nil: the engine's alone.
    package var regionPolicy: AbusePolicy.RegionPolicy? = nil
    /// The second factors its users may enrol (empty: none). nil: every kind, as the default pool.
    package var secondFactors: Set<FactorKind>? = nil
    /// The app name its SMS texts use (`sms.appName` of the engine otherwise).
    package var smsAppName: String? = nil

    package static let keys: Set<String> = ["testPhoneNumbers", "smsRegionPolicy", "secondFactors", "smsAppName"]

    package init() {}

    /// Applies the keys `r` holds (an absent key keeps its value; null clears it).
    package mutating func apply(_ r: ObjectReader) throws(PhoneAuthError) {
        // ObjectReader.value reads null as absent: here null is a value of its own (clear).
        let given = Dictionary(r.entries, uniquingKeysWith: { first, _ in first })
        if let numbers = given["testPhoneNumbers"] {
            if case .null = numbers {
                testPhoneNumbers = [:]
            } else {
                testPhoneNumbers = try EngineConfig.readTestPhoneNumbers(
                    try ObjectReader(numbers, path: "testPhoneNumbers"), code: .invalidArgument)
            }
        }
        if let policy = given["smsRegionPolicy"] {
            regionPolicy =
                if case .null = policy { nil } else {
                    try AbusePolicy.readRegionPolicy(
                        try ObjectReader(policy, path: "smsRegionPolicy"), key: "smsRegionPolicy",
                        code: .invalidArgument)
                }
        }
        if let factors = given["secondFactors"] {
            switch factors {
            case .null: secondFactors = nil
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
                secondFactors = kinds
            default:
                throw PhoneAuthError(
                    .invalidArgument, "The field 'secondFactors' must be an array (or null: every kind).",
                    details: [("field", .string("secondFactors"))])
            }
        }
        if let name = given["smsAppName"] {
            switch name {
            case .null: smsAppName = nil
            case let .string(text) where SMSText.isAppName(text): smsAppName = text
            default:
                throw PhoneAuthError(
                    .invalidArgument, "The field 'smsAppName' \(SMSText.appNameRule).",
                    details: [("field", .string("smsAppName"))])
            }
        }
    }

    package var json: JSONValue {
        .object([
            (
                "testPhoneNumbers",
                .object(testPhoneNumbers.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
            ),
            ("smsRegionPolicy", regionPolicy?.json ?? .null),
            ("secondFactors", secondFactors.map { .array($0.map(\.rawValue).sorted().map { .string($0) }) } ?? .null),
            ("smsAppName", smsAppName.map { .string($0) } ?? .null),
        ])
    }

    /// The settings as stored (written by `json`, so read back with the same checks).
    static func stored(_ text: String) throws -> TenantSettings {
        var settings = TenantSettings()
        try settings.apply(try ObjectReader(try JSONCodec.parse(text)))
        return settings
    }
}
