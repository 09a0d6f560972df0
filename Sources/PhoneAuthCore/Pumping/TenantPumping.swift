/// What a tenant sets of the pumping defense (its settings' `pumping`): a mode of its own, allow
/// lists added to the engine's, and toll fraud rules of its own. The floors, ratios and blocks
/// stay the engine's, and so do the counts: a prefix, a country or a network is one scope for
/// every tenant.
package struct TenantPumping: Sendable, Hashable {
    /// nil: the engine's mode.
    package var mode: PumpingPolicy.Mode?
    package var allowPrefixes: [String] = []
    package var allowNetworks: [IPNetwork] = []
    /// nil: the engine's toll fraud rules.
    package var tollFraud: TollFraudPolicy?

    package init(
        mode: PumpingPolicy.Mode? = nil, allowPrefixes: [String] = [], allowNetworks: [IPNetwork] = [],
        tollFraud: TollFraudPolicy? = nil
    ) {
        self.mode = mode
        self.allowPrefixes = allowPrefixes
        self.allowNetworks = allowNetworks
        self.tollFraud = tollFraud
    }

    package var json: JSONValue { Self.json(mode: mode, allowPrefixes, allowNetworks.map(\.text), tollFraud) }

    /// Settings given as text (PhoneAuthKit's), read with the JSON methods' checks and refusals.
    package static func checked(
        mode: PumpingPolicy.Mode?, allowPrefixes: [String], allowNetworks: [String], tollFraud: TollFraudPolicy?
    ) throws(PhoneAuthError) -> TenantPumping {
        try read(try ObjectReader(json(mode: mode, allowPrefixes, allowNetworks, tollFraud), path: "pumping"))
    }

    private static func json(
        mode: PumpingPolicy.Mode?, _ prefixes: [String], _ networks: [String], _ tollFraud: TollFraudPolicy?
    ) -> JSONValue {
        .object([
            ("mode", mode.map { .string($0.rawValue) } ?? .null),
            ("allowPrefixes", .array(prefixes.map { .string($0) })),
            ("allowNetworks", .array(networks.map { .string($0) })),
            ("tollFraud", tollFraud?.json ?? .null),
        ])
    }

    /// The object `o` (a tenant's `pumping`), each field checked as the engine's are.
    package static func read(_ o: ObjectReader) throws(PhoneAuthError) -> TenantPumping {
        try o.rejectUnknown(["mode", "allowPrefixes", "allowNetworks", "tollFraud"])
        var pumping = TenantPumping(mode: try PumpingPolicy.readMode(o))
        (pumping.allowPrefixes, pumping.allowNetworks) = try PumpingPolicy.readAllowLists(o)
        if let tollFraud = try o.object("tollFraud") { pumping.tollFraud = try TollFraudPolicy.read(tollFraud) }
        return pumping
    }
}
