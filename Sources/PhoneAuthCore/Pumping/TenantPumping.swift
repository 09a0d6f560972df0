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

    package var json: JSONValue { Self.json(mode: mode, allowPrefixes, allowNetworks.map(\.text)) }

    /// Settings given as text (PhoneAuthKit's), read with the JSON methods' checks and refusals.
    package static func checked(
        mode: PumpingPolicy.Mode?, allowPrefixes: [String], allowNetworks: [String]
    ) throws(PhoneAuthError) -> TenantPumping {
        try read(try ObjectReader(json(mode: mode, allowPrefixes, allowNetworks), path: "pumping"))
    }

    private static func json(mode: PumpingPolicy.Mode?, _ prefixes: [String], _ networks: [String]) -> JSONValue {
        .object([
            ("mode", mode.map { .string($0.rawValue) } ?? .null),
            ("allowPrefixes", .array(prefixes.map { .string($0) })),
            ("allowNetworks", .array(networks.map { .string($0) })),
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
