/// The defense against SMS pumping (configuration key `pumping`): codes sent and codes verified
/// are counted per destination prefix and country and per client network, and a scope
/// whose unverified codes outgrow what its verified history allows is blocked for a while. On by
/// default; docs/API.md ("SMS pumping") describes each key.
package struct PumpingPolicy: Sendable {
    /// What a tripped rule does: refuse the send (enforce), only record the decision (record), or
    /// nothing is judged or counted at all (off).
    package enum Mode: String, Sendable, CaseIterable {
        case enforce, record, off
    }

    package var mode = Mode.enforce
    /// Destinations never judged nor counted: E.164 starts such as "+44" or "+1415".
    package var allowPrefixes: [String] = []
    /// Client networks never judged nor counted.
    package var allowNetworks: [IPNetwork] = []
    /// Unverified codes a scope may have in an hour with no verified history (a cold start); a
    /// day allows `dayFloorHours` times as many. As the scope's verified history grows, its own
    /// allowance takes over (see PumpingJudge.allowance), never below half the floor.
    package var hourFloors: [PumpingScope.Kind: Int] = [.prefix: 5, .country: 30, .network: 10]
    package static let dayFloorHours = 2
    /// Unverified codes allowed per 100 verified ones in the scope's history (real users leave
    /// about 10 of every 100 codes unentered).
    package var unverifiedPerHundredVerified = 25
    /// The first block's length; each next one while the attack goes on doubles, up to the cap.
    package var blockSeconds: Int64 = 900
    package var maxBlockSeconds: Int64 = 43_200
    /// Verified codes from a network in a week that make it a known one: its new numbers get
    /// codes even to a blocked destination (its own rule still judges it); 0: none is known.
    package var knownNetworkVerified = 3
    /// The captcha provider's rating of each send, judged by Firebase's rules (off by default).
    package var tollFraud = TollFraudPolicy()

    package init() {}

    /// Whether sends to `phone` from `address` are judged at all.
    func judges(_ phone: PhoneNumber, from address: ClientAddress?) -> Bool {
        guard mode != .off, !allowPrefixes.contains(where: { phone.e164.hasPrefix($0) }) else { return false }
        guard let address else { return true }
        return !allowNetworks.contains { $0.contains(address) }
    }

    /// Whether sends are rated by their captcha provider (pumping.tollFraud, not off).
    package var ratesSends: Bool { mode != .off && tollFraud.asksRisk }

    /// Whether a send to `phone` from `address` is to be rated by its captcha provider.
    func rates(_ phone: PhoneNumber, from address: ClientAddress?) -> Bool {
        ratesSends && judges(phone, from: address)
    }

    static func read(_ r: ObjectReader) throws(PhoneAuthError) -> PumpingPolicy {
        var p = PumpingPolicy()
        guard let o = try r.object("pumping") else { return p }
        try o.rejectUnknown([
            "mode", "allowPrefixes", "allowNetworks", "hourFloors", "unverifiedPerHundredVerified", "blockSeconds",
            "maxBlockSeconds", "knownNetworkVerified", "tollFraud",
        ])
        p.mode = try readMode(o) ?? p.mode
        (p.allowPrefixes, p.allowNetworks) = try readAllowLists(o)
        if let floors = try o.object("hourFloors") {
            try floors.rejectUnknown(Set(PumpingScope.Kind.allCases.map(\.rawValue)))
            for kind in PumpingScope.Kind.allCases {
                if let n = try floors.int(kind.rawValue, in: 1...1_000_000) { p.hourFloors[kind] = Int(n) }
            }
        }
        p.unverifiedPerHundredVerified = Int(
            try o.int("unverifiedPerHundredVerified", in: 0...10_000) ?? Int64(p.unverifiedPerHundredVerified))
        p.blockSeconds = try o.int("blockSeconds", in: 1...604_800) ?? p.blockSeconds
        p.maxBlockSeconds = try o.int("maxBlockSeconds", in: 1...2_592_000) ?? max(p.maxBlockSeconds, p.blockSeconds)
        guard p.maxBlockSeconds >= p.blockSeconds else {
            throw EngineConfig.bad("pumping.maxBlockSeconds", "must be at least pumping.blockSeconds")
        }
        p.knownNetworkVerified = Int(
            try o.int("knownNetworkVerified", in: 0...1_000_000) ?? Int64(p.knownNetworkVerified))
        if let tollFraud = try o.object("tollFraud") { p.tollFraud = try TollFraudPolicy.read(tollFraud) }
        return p
    }

    /// The policy a tenant's send is judged by: the tenant's mode if it sets one, and its allow
    /// lists beside the engine's, and its toll fraud rules if it sets them (the counts and their
    /// rules are the engine's: a scope is one scope for every tenant).
    package func overridden(by tenant: TenantPumping?) -> PumpingPolicy {
        guard let tenant else { return self }
        var policy = self
        policy.mode = tenant.mode ?? mode
        policy.allowPrefixes += tenant.allowPrefixes
        policy.allowNetworks += tenant.allowNetworks
        policy.tollFraud = tenant.tollFraud ?? tollFraud
        return policy
    }

    /// `mode` of the object `o` (the engine's `pumping` or a tenant's), checked.
    static func readMode(_ o: ObjectReader) throws(PhoneAuthError) -> Mode? {
        guard let mode = try o.string("mode") else { return nil }
        guard let m = Mode(rawValue: mode) else { throw o.refusal("mode", "must be one of enforce, record, off") }
        return m
    }

    /// `allowPrefixes` and `allowNetworks` of the object `o`, each entry checked.
    static func readAllowLists(_ o: ObjectReader) throws(PhoneAuthError) -> ([String], [IPNetwork]) {
        let prefixes = try strings(o, "allowPrefixes").map { prefix throws(PhoneAuthError) in
            guard prefix.count >= 2, prefix.count <= 16, prefix.first == "+", prefix.dropFirst().allSatisfy(\.isNumber)
            else {
                throw o.refusal(
                    "allowPrefixes",
                    "must hold E.164 starts such as \"+44\"; \(Echo.quoted(prefix, or: "an entry")) is not")
            }
            return prefix
        }
        let networks = try strings(o, "allowNetworks").map { text throws(PhoneAuthError) in
            guard let network = IPNetwork(text) else {
                throw o.refusal(
                    "allowNetworks",
                    "must hold networks such as \"198.51.100.0/24\"; \(Echo.quoted(text, or: "an entry")) is not")
            }
            return network
        }
        return (prefixes, networks)
    }

    private static func strings(_ o: ObjectReader, _ key: String) throws(PhoneAuthError) -> [String] {
        guard let value = o.value(key) else { return [] }
        guard case let .array(items) = value, items.count <= 1000 else {
            throw o.refusal(key, "must be an array of at most 1000 strings")
        }
        var result: [String] = []
        for item in items {
            guard case let .string(s) = item else { throw o.refusal(key, "must be an array of at most 1000 strings") }
            result.append(s)
        }
        return result
    }
}
