/// `channels`: which channel carries a code when the caller names none, and which one a failed
/// or unconfirmed message falls back to.
///
///     "channels": {"preferred": {"IN": "whatsapp", "BR": "whatsapp", "default": "sms"},
///                  "fallback": {"whatsapp": "sms", "afterSeconds": 20}}
package struct ChannelSettings: Sendable {
    /// By CLDR region; `defaultChannel` for the others.
    package var preferred: [String: Channel] = [:]
    package var defaultChannel = Channel.sms
    /// The channel each channel's message falls back to, once.
    package var fallback: [Channel: Channel] = [:]
    /// How long a sent message may go without a receipt saying it arrived before its fallback
    /// goes (0: only a failure falls back).
    package var fallbackAfterSeconds: Int64 = 0

    package init() {}

    /// The channel of a send to `region` when the caller names `asked` (nil: the preference).
    package func channel(_ asked: Channel?, region: String) -> Channel {
        asked ?? preferred[region] ?? defaultChannel
    }

    static func read(_ r: ObjectReader) throws(PhoneAuthError) -> ChannelSettings {
        var settings = ChannelSettings()
        try r.rejectUnknown(["preferred", "fallback"])
        if let preferred = try r.object("preferred") {
            let regions = preferred.entries.map(\.0).filter { $0 != "default" }
            try AbusePolicy.checkRegions(regions, key: "channels.preferred")
            for (key, value) in preferred.entries {
                let channel = try Self.channel(value, key: "channels.preferred.\(key)")
                if key == "default" { settings.defaultChannel = channel } else { settings.preferred[key] = channel }
            }
        }
        if let fallback = try r.object("fallback") {
            try fallback.rejectUnknown(Set(Channel.allCases.map(\.rawValue) + ["afterSeconds"]))
            for (key, value) in fallback.entries where key != "afterSeconds" {
                let from = Channel(rawValue: key)!
                let to = try Self.channel(value, key: "channels.fallback.\(key)")
                guard to != from else {
                    throw EngineConfig.bad("channels.fallback.\(key)", "must name another channel")
                }
                settings.fallback[from] = to
            }
            settings.fallbackAfterSeconds = try fallback.int("afterSeconds", in: 0...3600) ?? 0
        }
        return settings
    }

    /// Every channel the settings may send on.
    var channelsUsed: Set<Channel> {
        Set(preferred.values).union([defaultChannel]).union(fallback.values)
    }

    private static func channel(_ value: JSONValue, key: String) throws(PhoneAuthError) -> Channel {
        guard case let .string(text) = value, let channel = Channel(rawValue: text) else {
            throw EngineConfig.bad(key, "must be \"sms\", \"whatsapp\" or \"voice\"")
        }
        return channel
    }
}
