/// What a tenant sets for itself; everything else comes from the engine's configuration.
/// Stored as JSON text in `tenants.settings`; read from and shown to every door in the same shape.
package struct TenantSettings: Sendable, Hashable {
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
    /// Its own pumping-defense mode and allow lists, over the engine's `pumping` (nil: the engine's).
    package var pumping: TenantPumping? = nil
    /// Its own relying party, origins and limits for passkeys, in place of the engine's
    /// `passkeys` (nil: the engine's).
    package var passkeys: PasskeySettings? = nil

    package static let keys: Set<String> = [
        "testPhoneNumbers", "smsRegionPolicy", "secondFactors", "smsAppName", "pumping", "passkeys",
    ]

    package init() {}

    package var json: JSONValue {
        .object([
            (
                "testPhoneNumbers",
                .object(testPhoneNumbers.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
            ),
            ("smsRegionPolicy", regionPolicy?.json ?? .null),
            ("secondFactors", secondFactors.map { .array($0.map(\.rawValue).sorted().map { .string($0) }) } ?? .null),
            ("smsAppName", smsAppName.map { .string($0) } ?? .null),
            ("pumping", pumping?.json ?? .null),
            ("passkeys", passkeys?.json ?? .null),
        ])
    }

    /// The settings as stored (written by `json`, so read back with the same checks).
    static func stored(_ text: String) throws -> TenantSettings {
        var settings = TenantSettings()
        try TenantChanges(settingsOf: try ObjectReader(try JSONCodec.parse(text))).apply(to: &settings)
        return settings
    }
}
