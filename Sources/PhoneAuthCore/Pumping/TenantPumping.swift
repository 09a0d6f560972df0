/// What a tenant sets of the pumping defense (its settings' `pumping`): a mode of its own, and
/// allow lists added to the engine's. The floors, ratios and blocks stay the engine's, and so do
/// the counts: a prefix, a country or a network is one scope for every tenant.
package struct TenantPumping: Sendable, Hashable {
    /// nil: the engine's mode.
    package var mode: PumpingPolicy.Mode?
    package var allowPrefixes: [String] = []
    package var allowNetworks: [IPNetwork] = []

    package init(mode: PumpingPolicy.Mode? = nil, allowPrefixes: [String] = [], allowNetworks: [IPNetwork] = []) {
        self.mode = mode
        self.allowPrefixes = allowPrefixes
        self.allowNetworks = allowNetworks
    }

    package var json: JSONValue {
        .object([
            ("mode", mode.map { .string($0.rawValue) } ?? .null),
            ("allowPrefixes", .array(allowPrefixes.map { .string($0) })),
            ("allowNetworks", .array(allowNetworks.map { .string($0.text) })),
        ])
    }

    /// The object `o` (a tenant's `pumping`), each field checked as the engine's are.
    package static func read(_ o: ObjectReader) throws(PhoneAuthError) -> TenantPumping {
        try o.rejectUnknown(["mode", "allowPrefixes", "allowNetworks"])
        var pumping = TenantPumping(mode: try PumpingPolicy.readMode(o))
        (pumping.allowPrefixes, pumping.allowNetworks) = try PumpingPolicy.readAllowLists(o)
        return pumping
    }
}
