/// What the engine refuses to protect SMS spend and codes: send quotas, wrong-code limits, and
/// which destinations may get an SMS at all. Read from the configuration keys `quotas`,
/// `smsRegionPolicy` and `phoneNumberTypes`. A limit of 0 is no limit.
package struct AbusePolicy: Sendable {
    /// SMS per phone number per hour (sliding window, counted exactly).
    package var smsPerNumberPerHour = 5
    /// SMS per client IP per hour (sliding window, estimated from two fixed windows).
    package var smsPerIpPerHour = 20
    /// SMS per project per day (sliding window, estimated).
    package var smsPerProjectPerDay = 10_000
    /// Voice calls per phone number per hour, and per project per day (sliding windows,
    /// estimated): counted on top of the SMS counts, which every channel's sends make.
    package var voicePerNumberPerHour = 3
    package var voicePerProjectPerDay = 1000
    /// SMS per destination region per day, by CLDR region code (sliding window, estimated).
    package var smsPerRegionPerDay: [String: Int] = [:]
    /// The pumping circuit breaker: SMS to any one region per hour; 0 is off.
    package var regionBurstPerHour = 0
    /// Wrong codes in a row for one number, across verifications, before it is first locked.
    /// The run ends only with a right code or `unlockPhoneNumber`, never with time: after a
    /// lockout, `maxAttempts` more wrong codes lock it again, each lockout twice as long as the
    /// one before (from `lockoutSeconds` up to `maxLockoutSeconds`).
    package var maxConsecutiveFailures = 100
    package var lockoutSeconds: Int64 = 3600
    package var maxLockoutSeconds: Int64 = 30 * 86_400
    /// Wrong codes per client IP per 5 minutes (sliding window, estimated).
    package var wrongCodesPerIpPer5Minutes = 50
    /// Push receipts and captcha challenges per client IP per hour (sliding window, estimated).
    package var appChecksPerIpPerHour = 60

    package enum RegionPolicy: Sendable, Hashable {
        case allowByDefault(disallowed: Set<String>)
        case allowlistOnly(allowed: Set<String>)

        package func allows(_ region: String) -> Bool {
            switch self {
            case let .allowByDefault(disallowed): return !disallowed.contains(region)
            case let .allowlistOnly(allowed): return allowed.contains(region)
            }
        }

        /// As the configuration (and Identity Platform's smsRegionConfig) write it.
        package var json: JSONValue {
            switch self {
            case let .allowByDefault(disallowed):
                .object([
                    (
                        "allowByDefault",
                        .object([("disallowedRegions", .array(disallowed.sorted().map { .string($0) }))])
                    )
                ])
            case let .allowlistOnly(allowed):
                .object([("allowlistOnly", .object([("allowedRegions", .array(allowed.sorted().map { .string($0) }))]))]
                )
            }
        }
    }
    package var regionPolicy = RegionPolicy.allowByDefault(disallowed: [])
    package var deniedTypes: Set<PhoneNumber.NumberType> = [.premiumRate, .sharedCost, .unknown]

    package init() {}

    package func allowsRegion(_ region: String) -> Bool { regionPolicy.allows(region) }

    /// The voice counts a send by `channel` is checked against (nil unless it is a call).
    func voiceLimits(_ channel: Channel) -> SendLimits.Voice? {
        channel == .voice
            ? SendLimits.Voice(perNumberPerHour: voicePerNumberPerHour, perProjectPerDay: voicePerProjectPerDay) : nil
    }

    static func read(_ r: ObjectReader) throws(PhoneAuthError) -> AbusePolicy {
        var p = AbusePolicy()
        if let q = try r.object("quotas") {
            try q.rejectUnknown([
                "smsPerNumberPerHour", "smsPerIpPerHour", "smsPerProjectPerDay", "smsPerRegionPerDay",
                "regionBurstPerHour", "maxConsecutiveFailures", "lockoutSeconds", "maxLockoutSeconds",
                "wrongCodesPerIpPer5Minutes",
                "appChecksPerIpPerHour", "voicePerNumberPerHour", "voicePerProjectPerDay",
            ])
            func limit(_ key: String, _ current: Int) throws(PhoneAuthError) -> Int {
                Int(try q.int(key, in: 0...100_000_000) ?? Int64(current))
            }
            p.smsPerNumberPerHour = try limit("smsPerNumberPerHour", p.smsPerNumberPerHour)
            p.smsPerIpPerHour = try limit("smsPerIpPerHour", p.smsPerIpPerHour)
            p.smsPerProjectPerDay = try limit("smsPerProjectPerDay", p.smsPerProjectPerDay)
            p.voicePerNumberPerHour = try limit("voicePerNumberPerHour", p.voicePerNumberPerHour)
            p.voicePerProjectPerDay = try limit("voicePerProjectPerDay", p.voicePerProjectPerDay)
            p.regionBurstPerHour = try limit("regionBurstPerHour", p.regionBurstPerHour)
            p.maxConsecutiveFailures = try limit("maxConsecutiveFailures", p.maxConsecutiveFailures)
            p.wrongCodesPerIpPer5Minutes = try limit("wrongCodesPerIpPer5Minutes", p.wrongCodesPerIpPer5Minutes)
            p.appChecksPerIpPerHour = try limit("appChecksPerIpPerHour", p.appChecksPerIpPerHour)
            p.lockoutSeconds = try q.int("lockoutSeconds", in: 1...31_536_000) ?? p.lockoutSeconds
            p.maxLockoutSeconds =
                try q.int("maxLockoutSeconds", in: 1...31_536_000) ?? max(p.maxLockoutSeconds, p.lockoutSeconds)
            guard p.maxLockoutSeconds >= p.lockoutSeconds else {
                throw bad("quotas.maxLockoutSeconds", "must be at least quotas.lockoutSeconds")
            }
            if let regions = try q.object("smsPerRegionPerDay") {
                try checkRegions(regions.entries.map(\.0), key: "quotas.smsPerRegionPerDay")
                for (region, value) in regions.entries {
                    guard case let .int(n) = value, n >= 0 else {
                        throw bad(
                            "quotas.smsPerRegionPerDay",
                            "must map each region to a count (an integer, 0 or more); '\(region)' does not")
                    }
                    p.smsPerRegionPerDay[region] = Int(min(n, 100_000_000))
                }
            }
        }
        if let policy = try r.object("smsRegionPolicy") {
            p.regionPolicy = try readRegionPolicy(policy, key: "smsRegionPolicy")
        }
        if let types = try r.object("phoneNumberTypes") {
            try types.rejectUnknown(["deny"])
            if let deny = types.value("deny") {
                guard case let .array(items) = deny else {
                    throw bad("phoneNumberTypes.deny", "must be an array of type names")
                }
                var denied: Set<PhoneNumber.NumberType> = []
                for item in items {
                    guard case let .string(name) = item,
                        let type = PhoneNumber.NumberType.allCases.first(where: { $0.name == name })
                    else {
                        let shown =
                            item.stringValue.map { Echo.quoted($0, or: "a name it does not know") }
                            ?? "a \(item.typeName)"
                        throw bad(
                            "phoneNumberTypes.deny",
                            "must list libphonenumber type names "
                                + "(\(PhoneNumber.NumberType.allCases.map(\.name).joined(separator: ", "))), "
                                + "not \(shown)"
                        )
                    }
                    denied.insert(type)
                }
                p.deniedTypes = denied
            }
        }
        return p
    }

    /// An `smsRegionPolicy` object (the engine's, or a tenant's under `code` invalidArgument).
    package static func readRegionPolicy(
        _ policy: ObjectReader, key: String, code: PhoneAuthError.Code = .invalidConfiguration
    ) throws(PhoneAuthError) -> RegionPolicy {
        try policy.rejectUnknown(["allowByDefault", "allowlistOnly"])
        let allow = try policy.object("allowByDefault"), only = try policy.object("allowlistOnly")
        switch (allow, only) {
        case let (allow?, nil):
            try allow.rejectUnknown(["disallowedRegions"])
            return .allowByDefault(
                disallowed: try regionList(allow, "disallowedRegions", "\(key).allowByDefault", code: code))
        case let (nil, only?):
            try only.rejectUnknown(["allowedRegions"])
            let allowed = try regionList(only, "allowedRegions", "\(key).allowlistOnly", code: code)
            // An empty allowlist would refuse every SMS, test numbers included: surely a mistake.
            guard !allowed.isEmpty else {
                throw bad("\(key).allowlistOnly.allowedRegions", "must list at least one region", code: code)
            }
            return .allowlistOnly(allowed: allowed)
        default:
            throw bad(key, "must hold exactly one of 'allowByDefault' and 'allowlistOnly'", code: code)
        }
    }

    private static func regionList(
        _ r: ObjectReader, _ field: String, _ path: String, code: PhoneAuthError.Code
    ) throws(PhoneAuthError) -> Set<String> {
        guard let value = r.value(field), case let .array(items) = value else {
            throw bad("\(path).\(field)", "must be an array of region codes", code: code)
        }
        var codes: [String] = []
        for item in items {
            guard case let .string(region) = item else {
                throw bad("\(path).\(field)", "must hold region codes as strings", code: code)
            }
            codes.append(region)
        }
        try checkRegions(codes, key: "\(path).\(field)", code: code)
        return Set(codes)
    }

    /// Refuses, naming them all, the codes libphonenumber does not know.
    static func checkRegions(
        _ codes: [String], key: String, code: PhoneAuthError.Code = .invalidConfiguration
    ) throws(PhoneAuthError) {
        let unknown = codes.filter { !PhoneNumber.isSupportedRegion($0) }
        guard unknown.isEmpty else {
            let shown = unknown.filter(Echo.isQuotable)
            let listed =
                shown.map { "'\($0)'" }
                + (shown.count < unknown.count ? ["\(unknown.count - shown.count) not shown"] : [])
            let error = bad(
                key, "has unknown region codes: \(listed.joined(separator: ", ")) (use CLDR codes such as \"US\")",
                code: code)
            throw PhoneAuthError(
                code, error.message, details: error.details + [("regions", .array(shown.map { .string($0) }))])
        }
    }

    private static func bad(
        _ key: String, _ problem: String, code: PhoneAuthError.Code = .invalidConfiguration
    ) -> PhoneAuthError { EngineConfig.bad(key, problem, code: code) }
}
