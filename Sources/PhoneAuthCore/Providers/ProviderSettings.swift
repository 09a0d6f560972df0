import Crypto
import Glibc

/// Reads `sms.providers`: a list of HTTP providers, tried in order. Every error names the key
/// (`sms.providers[0].authToken`), never a value: values here are secrets or hold them. Each
/// type's own keys are read in a file of its own (ProviderSettings+Twilio.swift, +Vonage,
/// +WhatsApp, +Webhook).
package enum ProviderSettings {
    static let maxProviders = 8
    static let types = ["twilio", "vonage", "webhook", "whatsapp"]

    static func read(_ value: JSONValue) throws(PhoneAuthError) -> [any HTTPProvider] {
        guard case let .array(entries) = value, (1...maxProviders).contains(entries.count) else {
            throw bad("sms.providers", "must be a list of 1 to \(maxProviders) provider objects")
        }
        var providers: [any HTTPProvider] = []
        for (index, entry) in entries.enumerated() {
            let provider = try readOne(
                ObjectReader(entry, code: .invalidConfiguration, path: "sms.providers[\(index)]"),
                path: "sms.providers[\(index)]")
            if providers.contains(where: { $0.endpoint.name == provider.endpoint.name }) {
                throw bad(
                    "sms.providers[\(index)].name",
                    "repeats the name '\(provider.endpoint.name)': give each provider its own name")
            }
            providers.append(provider)
        }
        return providers
    }

    static let commonKeys: Set<String> = [
        "type", "name", "baseUrl", "timeoutMs", "connectTimeoutMs", "caFile", "channels", "receiptUrl",
    ]

    /// The channels each type can carry (Meta's API is WhatsApp's alone), and those it carries
    /// when its entry has no `channels`.
    static let carried: [String: Set<Channel>] = [
        "twilio": Set(Channel.allCases), "vonage": Set(Channel.allCases), "webhook": Set(Channel.allCases),
        "whatsapp": [.whatsapp],
    ]
    static let defaultChannels: [String: Set<Channel>] = [
        "twilio": [.sms], "vonage": [.sms], "webhook": [.sms], "whatsapp": [.whatsapp],
    ]

    /// What every entry has: where the provider is, what it carries, where its receipts go.
    struct Common {
        var type: String
        var path: String
        var endpoint: HTTPEndpoint
        var channels: Set<Channel>
        var receiptUrl: String?
    }

    static func readOne(_ r: ObjectReader, path: String) throws(PhoneAuthError) -> any HTTPProvider {
        guard let type = try r.string("type"), types.contains(type) else {
            throw bad("\(path).type", "must be one of \(types.joined(separator: ", "))")
        }
        let channels = try readChannels(r, path: path, type: type)
        var receiptUrl: String?
        if let url = try r.string("receiptUrl") {
            guard type != "webhook" else {
                throw bad("\(path).receiptUrl", "is not used by a webhook: the host's endpoint is its own")
            }
            receiptUrl = try HTTPEndpoint.checkURL(url, key: "\(path).receiptUrl")
        }
        func common(_ defaultUrl: String) throws(PhoneAuthError) -> Common {
            Common(
                type: type, path: path,
                endpoint: try HTTPEndpoint.read(r, path: path, type: type, defaultUrl: defaultUrl),
                channels: channels, receiptUrl: receiptUrl)
        }
        switch type {
        case "twilio": return try readTwilio(r, try common(TwilioProvider.defaultBaseUrl))
        case "vonage": return try readVonage(r, try common(VonageProvider.defaultBaseUrl))
        case "whatsapp": return try readWhatsApp(r, try common(WhatsAppProvider.defaultBaseUrl))
        default: return try readWebhookEntry(r, path: path, type: type, channels: channels)
        }
    }

    /// `channels`: a list of the channel names the entry carries, each one its type can carry.
    private static func readChannels(
        _ r: ObjectReader, path: String, type: String
    ) throws(PhoneAuthError) -> Set<Channel> {
        let key = "\(path).channels"
        guard let value = r.value("channels") else { return defaultChannels[type] ?? [.sms] }
        let names = Channel.allCases.map(\.rawValue).joined(separator: ", ")
        guard case let .array(items) = value, !items.isEmpty else {
            throw bad(key, "must be a list of one or more of \(names)")
        }
        let canCarry = carried[type] ?? []
        var channels: Set<Channel> = []
        for item in items {
            guard case let .string(name) = item, let channel = Channel(rawValue: name) else {
                throw bad(key, "must be a list of one or more of \(names)")
            }
            guard canCarry.contains(channel) else {
                throw bad(
                    key,
                    "holds \(name), which a \(type) provider cannot carry (it carries "
                        + "\(canCarry.sorted().map(\.rawValue).joined(separator: ", ")))")
            }
            guard channels.insert(channel).inserted else { throw bad(key, "holds \(name) twice") }
        }
        return channels
    }

    /// A key that only a channel uses: refused when the entry does not carry it, and (unless not
    /// `required`) required when it does.
    static func forChannel(
        _ r: ObjectReader, _ key: String, _ channel: Channel, _ c: Common, required: Bool = true
    ) throws(PhoneAuthError) -> String? {
        let value = try plain(r, key, path: c.path)
        if c.channels.contains(channel) {
            if required, value == nil { throw bad("\(c.path).\(key)", "is required when channels holds \(channel)") }
        } else if value != nil {
            throw bad("\(c.path).\(key)", "is only used when channels holds \(channel)")
        }
        return value
    }

    /// A required identifier-like value (account SID, API key, sender).
    static func required(
        _ r: ObjectReader, _ key: String, path: String, colonFree: Bool = false
    ) throws(PhoneAuthError) -> String {
        guard let value = try plain(r, key, path: path, colonFree: colonFree) else {
            throw bad("\(path).\(key)", "is required")
        }
        return value
    }

    /// `colonFree`: the user name of HTTP Basic authentication, where a ':' would end it.
    static func plain(
        _ r: ObjectReader, _ key: String, path: String, colonFree: Bool = false
    ) throws(PhoneAuthError) -> String? {
        guard let value = try r.string(key) else { return nil }
        guard !value.isEmpty, value.utf8.count <= 128, !value.unicodeScalars.contains(where: { $0.value < 32 }),
            !(colonFree && value.contains(":"))
        else {
            throw bad(
                "\(path).\(key)", "must be 1 to 128 characters without control characters\(colonFree ? " or ':'" : "")")
        }
        return value
    }

    /// A callback to an entry without the secret that checks it: refused, as for a provider
    /// that sends none (the entry's `key` is what is missing).
    static func noSecret(_ provider: String, key: String) -> PhoneAuthError {
        ReceiptRefusal.noReceipts.error(
            "The provider '\(provider)' cannot check its callbacks: its entry of sms.providers has no \(key).",
            field: "provider")
    }

    static func bad(_ key: String, _ problem: String) -> PhoneAuthError { EngineConfig.bad(key, problem) }
}
