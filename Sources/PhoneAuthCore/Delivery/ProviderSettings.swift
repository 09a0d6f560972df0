import Crypto
import Glibc

/// Reads `sms.providers`: a list of HTTP providers, tried in order. Every error names the key
/// (`sms.providers[0].authToken`), never a value: values here are secrets or hold them.
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

    /// `appVerification.pushWebhook`: a webhook object as in sms.providers, without `type`.
    /// A Standard Webhooks endpoint at `path` (appVerification.pushWebhook, events): url, secret
    /// (or secretEnv), name, timeouts, caFile.
    static func readWebhook(_ r: ObjectReader, path: String) throws(PhoneAuthError) -> WebhookProvider {
        guard r.value("type") == nil else {
            throw bad("\(path).type", "is not used: it is always a webhook")
        }
        for key in ["channels", "receiptUrl"] where r.value(key) != nil {
            throw bad("\(path).\(key)", "is not used here: it belongs to sms.providers")
        }
        let typed = try ObjectReader(
            .object(r.entries + [("type", .string("webhook"))]), code: .invalidConfiguration, path: path)
        guard let provider = try readOne(typed, path: path) as? WebhookProvider else {
            throw bad(path, "must be a webhook")
        }
        return provider
    }

    private static let commonKeys: Set<String> = [
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

    private static func readOne(_ r: ObjectReader, path: String) throws(PhoneAuthError) -> any HTTPProvider {
        guard let type = try r.string("type"), types.contains(type) else {
            throw bad("\(path).type", "must be one of \(types.joined(separator: ", "))")
        }
        let channels = try readChannels(r, path: path, type: type)
        var receiptUrl: String?
        if let url = try r.string("receiptUrl") {
            guard type != "webhook" else {
                throw bad("\(path).receiptUrl", "is not used by a webhook: the host's endpoint is its own")
            }
            receiptUrl = try checkURL(url, key: "\(path).receiptUrl")
        }
        func common(_ defaultUrl: String) throws(PhoneAuthError) -> Common {
            Common(
                type: type, path: path, endpoint: try readEndpoint(r, path: path, type: type, defaultUrl: defaultUrl),
                channels: channels, receiptUrl: receiptUrl)
        }
        switch type {
        case "twilio": return try readTwilio(r, try common(TwilioProvider.defaultBaseUrl))
        case "vonage": return try readVonage(r, try common(VonageProvider.defaultBaseUrl))
        case "whatsapp": return try readWhatsApp(r, try common(WhatsAppProvider.defaultBaseUrl))
        default:
            try r.rejectUnknown(commonKeys.union(["url", "secret", "secretEnv"]).subtracting(["baseUrl"]))
            guard let url = try r.string("url") else {
                throw bad("\(path).url", "is required: the URL the webhook is sent to")
            }
            let endpoint = try readEndpoint(r, path: path, type: type, url: (url, "url"))
            guard let secret = try secret(r, "secret", path: path) else {
                throw bad("\(path).secret", "(or secretEnv) is required")
            }
            guard let key = WebhookProvider.key(fromSecret: secret) else {
                throw bad(
                    "\(path).secret", "must be a Standard Webhooks secret: whsec_ and at least 16 bytes in base64")
            }
            return WebhookProvider(endpoint: endpoint, key: key, channels: channels)
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

    /// Twilio: an account SID and its auth token, or an API key; a sender for each channel.
    private static func readTwilio(_ r: ObjectReader, _ c: Common) throws(PhoneAuthError) -> TwilioProvider {
        let path = c.path
        try r.rejectUnknown(
            commonKeys.union([
                "accountSid", "authToken", "authTokenEnv", "apiKeySid", "apiKeySecret", "apiKeySecretEnv", "from",
                "messagingServiceSid", "whatsappFrom", "whatsappContentSid", "voiceFrom",
            ]))
        let accountSid = try required(r, "accountSid", path: path, colonFree: true)
        let token = try secret(r, "authToken", path: path)
        let credentials: String
        if let keySid = try plain(r, "apiKeySid", path: path, colonFree: true) {
            guard let secret = try secret(r, "apiKeySecret", path: path) else {
                throw bad("\(path).apiKeySecret", "(or apiKeySecretEnv) is required with apiKeySid")
            }
            // The auth token may come too: it signs no request then, but checks Twilio's callbacks.
            credentials = "\(keySid):\(secret)"
        } else {
            guard try r.string("apiKeySecret") == nil, try r.string("apiKeySecretEnv") == nil else {
                throw bad("\(path).apiKeySid", "is required with apiKeySecret")
            }
            guard let token else {
                throw bad("\(path).authToken", "(or authTokenEnv, or apiKeySid and apiKeySecret) is required")
            }
            credentials = "\(accountSid):\(token)"
        }
        if c.receiptUrl != nil, token == nil {
            throw bad(
                "\(path).authToken",
                "(or authTokenEnv) is required with receiptUrl: Twilio signs its callbacks with the auth token")
        }
        let from = try plain(r, "from", path: path)
        let service = try plain(r, "messagingServiceSid", path: path)
        if c.channels.contains(.sms) {
            guard (from == nil) != (service == nil) else {
                throw bad("\(path).from", "or messagingServiceSid (exactly one of them) is required")
            }
        } else {
            if from != nil { throw bad("\(path).from", "is the SMS sender, but channels does not hold sms") }
            if service != nil, !c.channels.contains(.whatsapp) {
                throw bad("\(path).messagingServiceSid", "is not used: channels holds neither sms nor whatsapp")
            }
        }
        var provider = TwilioProvider(
            endpoint: c.endpoint, accountSid: accountSid, credentials: credentials, from: from,
            messagingServiceSid: service)
        provider.channels = c.channels
        provider.authToken = token
        provider.statusCallbackUrl = c.receiptUrl
        provider.whatsappContentSid = try forChannel(r, "whatsappContentSid", .whatsapp, c)
        if let whatsappFrom = try forChannel(r, "whatsappFrom", .whatsapp, c, required: false) {
            // Twilio's own spelling, whatsapp:+14155238886, is taken as well.
            let number = whatsappFrom.hasPrefix("whatsapp:") ? String(whatsappFrom.dropFirst(9)) : whatsappFrom
            provider.whatsappFrom = try e164(number, key: "\(path).whatsappFrom")
        } else if c.channels.contains(.whatsapp), service == nil {
            throw bad("\(path).whatsappFrom", "(or messagingServiceSid) is required when channels holds whatsapp")
        }
        if let voiceFrom = try forChannel(r, "voiceFrom", .voice, c) {
            provider.voiceFrom = try e164(voiceFrom, key: "\(path).voiceFrom")
        }
        return provider
    }

    /// Vonage: an API key and secret (SMS, Messages), an application and its key (Voice).
    private static func readVonage(_ r: ObjectReader, _ c: Common) throws(PhoneAuthError) -> VonageProvider {
        let path = c.path
        try r.rejectUnknown(
            commonKeys.union([
                "apiKey", "apiSecret", "apiSecretEnv", "from", "apiBaseUrl", "whatsappFrom", "whatsappTemplates",
                "voiceFrom", "applicationId", "privateKey", "privateKeyEnv", "privateKeyFile", "signatureSecret",
                "signatureSecretEnv",
            ]))
        // The SMS and Messages APIs sign in with the key and secret; the Voice API with a JWT.
        let needsKey = !c.channels.isDisjoint(with: [.sms, .whatsapp])
        let apiKey = try plain(r, "apiKey", path: path, colonFree: true)
        let apiSecret = try secret(r, "apiSecret", path: path)
        if needsKey {
            guard apiKey != nil else { throw bad("\(path).apiKey", "is required") }
            guard apiSecret != nil else { throw bad("\(path).apiSecret", "(or apiSecretEnv) is required") }
        }
        let from = try forChannel(r, "from", .sms, c)
        var provider = VonageProvider(
            endpoint: c.endpoint, apiKey: apiKey ?? "", apiSecret: apiSecret ?? "", from: from)
        provider.channels = c.channels
        provider.receiptUrl = c.receiptUrl
        provider.signatureSecret = try secret(r, "signatureSecret", path: path)
        if c.receiptUrl != nil, provider.signatureSecret == nil {
            throw bad(
                "\(path).signatureSecret",
                "(or signatureSecretEnv) is required with receiptUrl: Vonage signs its callbacks with it")
        }
        if let url = try r.string("apiBaseUrl") {
            guard !c.channels.isDisjoint(with: [.whatsapp, .voice]) else {
                throw bad("\(path).apiBaseUrl", "is only used when channels holds whatsapp or voice")
            }
            guard !url.contains("?") else {
                throw bad("\(path).apiBaseUrl", "must not have a query (?...): the API's path is appended to it")
            }
            provider.apiBaseUrl = try checkURL(url, key: "\(path).apiBaseUrl")
        }
        if let number = try forChannel(r, "whatsappFrom", .whatsapp, c) {
            provider.whatsappFrom = try digits(number, key: "\(path).whatsappFrom")
        }
        if let templates = try whatsAppTemplates(r, "whatsappTemplates", path: path) {
            guard c.channels.contains(.whatsapp) else {
                throw bad("\(path).whatsappTemplates", "is only used when channels holds whatsapp")
            }
            provider.whatsappTemplates = templates
        } else if c.channels.contains(.whatsapp) {
            throw bad("\(path).whatsappTemplates", "is required when channels holds whatsapp")
        }
        if let number = try forChannel(r, "voiceFrom", .voice, c) {
            provider.voiceFrom = try digits(number, key: "\(path).voiceFrom")
        }
        let applicationId = try forChannel(r, "applicationId", .voice, c)
        let key = try privateKey(r, path: path)
        if let key {
            guard c.channels.contains(.voice) else {
                throw bad("\(path).\(key.key)", "is only used when channels holds voice")
            }
        }
        if let applicationId {
            guard let key else {
                throw bad(
                    "\(path).privateKey", "(or privateKeyEnv or privateKeyFile) is required when channels holds voice")
            }
            guard let jwt = VonageJWT(applicationId: applicationId, pem: key.pem) else {
                throw bad(
                    "\(path).\(key.key)",
                    "must be the Vonage application's RSA private key (2048 bits or more) in PEM: "
                        + "-----BEGIN PRIVATE KEY-----")
            }
            provider.jwt = jwt
        }
        return provider
    }

    /// Meta's WhatsApp Cloud API: a business phone number's ID, an access token, templates.
    private static func readWhatsApp(_ r: ObjectReader, _ c: Common) throws(PhoneAuthError) -> WhatsAppProvider {
        let path = c.path
        try r.rejectUnknown(
            commonKeys.union([
                "apiVersion", "phoneNumberId", "accessToken", "accessTokenEnv", "templates", "appSecret",
                "appSecretEnv", "verifyToken", "verifyTokenEnv",
            ]))
        let phoneNumberId = try required(r, "phoneNumberId", path: path)
        guard phoneNumberId.utf8.allSatisfy(ASCII.isDigit) else {
            throw bad("\(path).phoneNumberId", "must be the business phone number's ID: digits only")
        }
        guard let accessToken = try secret(r, "accessToken", path: path) else {
            throw bad("\(path).accessToken", "(or accessTokenEnv) is required")
        }
        // It goes into a header line: nothing there may end the line.
        guard accessToken.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 }) else {
            throw bad("\(path).accessToken", "must be printable ASCII without spaces")
        }
        guard let templates = try whatsAppTemplates(r, "templates", path: path) else {
            throw bad("\(path).templates", "is required: the approved authentication template for each language")
        }
        var provider = WhatsAppProvider(
            endpoint: c.endpoint, phoneNumberId: phoneNumberId, accessToken: accessToken, templates: templates)
        if let version = try r.string("apiVersion") {
            let parts = version.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
            guard version.hasPrefix("v"), parts.count == 2,
                parts.allSatisfy({ (1...3).contains($0.utf8.count) && $0.utf8.allSatisfy(ASCII.isDigit) })
            else {
                throw bad(
                    "\(path).apiVersion", "must be a Graph API version such as \(WhatsAppProvider.defaultApiVersion)")
            }
            provider.apiVersion = version
        }
        provider.appSecret = try secret(r, "appSecret", path: path)
        provider.verifyToken = try secret(r, "verifyToken", path: path)
        provider.receiptUrl = c.receiptUrl
        provider.channels = c.channels
        return provider
    }

    /// A key that only a channel uses: refused when the entry does not carry it, and (unless not
    /// `required`) required when it does.
    private static func forChannel(
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

    /// `key`: a map from language tags to approved WhatsApp authentication templates, each
    /// {"name": …, "language": …} or just the name (its language then the tag, "pt-BR" → "pt_BR").
    static func whatsAppTemplates(
        _ r: ObjectReader, _ key: String, path: String
    ) throws(PhoneAuthError) -> [String: WhatsAppProvider.Template]? {
        guard let value = r.value(key) else { return nil }
        let shape =
            "must be an object from language tags to approved authentication templates, "
            + #"e.g. {"en": {"name": "verification_code", "language": "en_US"}}"#
        guard case let .object(entries) = value, (1...100).contains(entries.count) else {
            throw bad("\(path).\(key)", shape)
        }
        var templates: [String: WhatsAppProvider.Template] = [:]
        var tagOf: [String: String] = [:]
        for (tag, entry) in entries {
            let at = "\(path).\(key).\(tag)"
            let language = SMSTemplates.canonical(tag)
            guard SMSText.isLanguageTag(language) else {
                throw bad(at, "is not a language tag such as en, fr or pt-BR")
            }
            if let other = tagOf.updateValue(tag, forKey: language) {
                throw bad(at, "is the same language as \(path).\(key).\(other) (\(language))")
            }
            let name: String
            var code: String?
            switch entry {
            case let .string(s): name = s
            case .object:
                let t = try ObjectReader(entry, code: .invalidConfiguration, path: at)
                try t.rejectUnknown(["name", "language"])
                guard let n = try t.string("name") else { throw bad("\(at).name", "is required") }
                name = n
                code = try t.string("language")
            default: throw bad(at, shape)
            }
            // Meta's template names: lowercase letters, digits and underscores.
            guard (1...512).contains(name.utf8.count),
                name.utf8.allSatisfy({ (97...122).contains($0) || ASCII.isDigit($0) || $0 == 95 })
            else {
                throw bad(
                    entry.stringValue == nil ? "\(at).name" : at,
                    "must be a template's name: lowercase letters, digits and _")
            }
            // "zh-Hant-TW" → "zh_TW": WhatsApp's codes have no script.
            let fallback = language.split(separator: "-").filter { $0.utf8.count != 4 }.map(String.init).joined(
                separator: "_")
            let whatsappLanguage = code ?? fallback
            guard (2...15).contains(whatsappLanguage.utf8.count),
                whatsappLanguage.utf8.allSatisfy({ ASCII.isLetter($0) || $0 == 95 })
            else {
                throw bad("\(at).language", "must be a WhatsApp language code such as en, en_US or pt_BR")
            }
            templates[language] = WhatsAppProvider.Template(name: name, language: whatsappLanguage)
        }
        return templates
    }

    /// "+" and 6 to 15 digits.
    private static func e164(_ number: String, key: String) throws(PhoneAuthError) -> String {
        let digits = number.utf8.dropFirst()
        guard number.hasPrefix("+"), (6...15).contains(digits.count), digits.allSatisfy(ASCII.isDigit) else {
            throw bad(key, "must be a phone number in E.164 form, such as +14155550100")
        }
        return number
    }

    /// 6 to 15 digits, a leading + dropped: how Vonage writes numbers.
    private static func digits(_ number: String, key: String) throws(PhoneAuthError) -> String {
        let digits = number.hasPrefix("+") ? String(number.dropFirst()) : number
        guard (6...15).contains(digits.utf8.count), digits.utf8.allSatisfy(ASCII.isDigit) else {
            throw bad(key, "must be a phone number of 6 to 15 digits, such as 14155550100")
        }
        return digits
    }

    /// The Vonage application's private key: inline (`privateKey`, newlines as \n allowed), from
    /// the environment (`privateKeyEnv`) or from a file (`privateKeyFile`), and the key it came by.
    private static func privateKey(
        _ r: ObjectReader, path: String
    ) throws(PhoneAuthError) -> (pem: String, key: String)? {
        let file = try r.string("privateKeyFile")
        if let file {
            guard try r.string("privateKey") == nil, try r.string("privateKeyEnv") == nil else {
                throw bad("\(path).privateKeyFile", "cannot be given with privateKey or privateKeyEnv")
            }
            guard let text = readSmallFile(file) else {
                throw bad("\(path).privateKeyFile", "must name a PEM file this process can read")
            }
            return (text, "privateKeyFile")
        }
        guard let text = try secret(r, "privateKey", path: path) else { return nil }
        // A PEM squeezed into one line of JSON or an environment variable.
        let pem = text.contains("\n") ? text : text.replacing("\\n", with: "\n")
        return (pem, try r.string("privateKeyEnv") != nil ? "privateKeyEnv" : "privateKey")
    }

    /// A file's text, if it can be read and is under 64 KiB (a key, not a dump).
    private static func readSmallFile(_ path: String) -> String? {
        guard !path.isEmpty, let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: 65_536)
        let n = fread(&bytes, 1, bytes.count, file)
        guard n > 0, n < bytes.count else { return nil }
        return String(decoding: bytes[0..<n], as: UTF8.self)
    }

    static func readEndpoint(
        _ r: ObjectReader, path: String, type: String, defaultUrl: String
    ) throws(PhoneAuthError) -> HTTPEndpoint {
        // The API's path is appended to a base URL: it cannot have a query of its own.
        let url = try r.string("baseUrl") ?? defaultUrl
        if url.contains("?") {
            throw bad("\(path).baseUrl", "must not have a query (?...): the API's path is appended to it")
        }
        return try readEndpoint(r, path: path, type: type, url: (url, "baseUrl"))
    }

    /// An endpoint at `url` (its value, its key), with `name`, `timeoutMs`, `connectTimeoutMs`
    /// and `caFile` read from `r`.
    static func readEndpoint(
        _ r: ObjectReader, path: String, type: String, url: (String, String), defaultTimeoutMs: Int64 = 10_000,
        maxTimeoutMs: Int64 = 120_000
    ) throws(PhoneAuthError) -> HTTPEndpoint {
        let name = try r.string("name") ?? type
        guard Echo.isQuotable(name) else {
            throw bad("\(path).name", "must be a plain name: a letter, then up to 63 letters, digits, '_', '.' or '-'")
        }
        var endpoint = HTTPEndpoint(name: name, baseUrl: try checkURL(url.0, key: "\(path).\(url.1)"))
        endpoint.timeoutMs = Int(try r.int("timeoutMs", in: 100...maxTimeoutMs) ?? defaultTimeoutMs)
        endpoint.connectTimeoutMs = Int(
            try r.int("connectTimeoutMs", in: 100...60_000) ?? Int64(min(endpoint.connectTimeoutMs, endpoint.timeoutMs))
        )
        if let caFile = try r.string("caFile") {
            guard !caFile.isEmpty, access(caFile, R_OK) == 0 else {
                throw bad("\(path).caFile", "must name a PEM file this process can read")
            }
            endpoint.caFile = caFile
        }
        return endpoint
    }

    /// An https URL (http only to this machine, where nothing travels over a network), without
    /// user information or a fragment; the trailing slash goes.
    package static func checkURL(_ url: String, key: String) throws(PhoneAuthError) -> String {
        let problem =
            "must be an https:// URL (http:// only for localhost, 127.0.0.1 or [::1]) "
            + "without user information, spaces or a fragment, its host a name or address"
        guard url.utf8.count <= 2048, !url.contains("#"),
            url.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 })
        else {
            throw bad(key, problem)
        }
        let rest: Substring
        if url.hasPrefix("https://") {
            rest = url.dropFirst(8)
        } else if url.hasPrefix("http://") {
            rest = url.dropFirst(7)
        } else {
            throw bad(key, problem)
        }
        let authority = rest.prefix(while: { $0 != "/" && $0 != "?" })
        // A host name, an address (IPv6 in brackets) and a port: nothing a header or a policy could misread.
        guard !authority.isEmpty,
            authority.utf8.allSatisfy({ ASCII.isLetterOrDigit($0) || [45, 46, 58, 91, 93].contains($0) })
        else { throw bad(key, problem) }
        if url.hasPrefix("http://") {
            let host =
                authority.hasPrefix("[")
                ? authority.prefix(while: { $0 != "]" }) + "]" : authority.prefix(while: { $0 != ":" })
            let port = authority.dropFirst(host.count)
            guard ["localhost", "127.0.0.1", "[::1]"].contains(String(host)), port.isEmpty || port.hasPrefix(":") else {
                throw bad(key, problem)
            }
        }
        var trimmed = url
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }

    /// A required identifier-like value (account SID, API key, sender).
    private static func required(
        _ r: ObjectReader, _ key: String, path: String, colonFree: Bool = false
    ) throws(PhoneAuthError) -> String {
        guard let value = try plain(r, key, path: path, colonFree: colonFree) else {
            throw bad("\(path).\(key)", "is required")
        }
        return value
    }

    /// `colonFree`: the user name of HTTP Basic authentication, where a ':' would end it.
    private static func plain(
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

    /// A secret given inline (`key`) or by the name of an environment variable (`keyEnv`), read now.
    static func secret(_ r: ObjectReader, _ key: String, path: String) throws(PhoneAuthError) -> String? {
        let inline = try r.string(key)
        let variable = try r.string(key + "Env")
        if inline != nil, variable != nil { throw bad("\(path).\(key)", "and \(key)Env cannot both be given") }
        if let inline {
            guard !inline.isEmpty else { throw bad("\(path).\(key)", "must not be empty") }
            return inline
        }
        guard let variable else { return nil }
        guard Echo.isQuotable(variable) else {
            throw bad("\(path).\(key)Env", "must be the name of an environment variable")
        }
        guard let value = EngineConfig.environment(variable) else {
            throw bad("\(path).\(key)Env", "names the environment variable \(variable), which is not set (or empty)")
        }
        return value
    }

    /// A callback to an entry without the secret that checks it: refused, as for a provider
    /// that sends none (the entry's `key` is what is missing).
    static func noSecret(_ provider: String, key: String) -> PhoneAuthError {
        PhoneAuthError(
            .invalidArgument,
            "The provider '\(provider)' cannot check its callbacks: its entry of sms.providers has no \(key).",
            details: [("field", .string("provider")), ("reason", .string("noReceipts"))])
    }

    private static func bad(_ key: String, _ problem: String) -> PhoneAuthError { EngineConfig.bad(key, problem) }
}
