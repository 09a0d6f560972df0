import Crypto
import Glibc

/// Reads `sms.providers`: a list of HTTP providers, tried in order. Every error names the key
/// (`sms.providers[0].authToken`), never a value: values here are secrets or hold them.
package enum ProviderSettings {
    static let maxProviders = 8
    static let types = ["twilio", "vonage", "webhook"]

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
        let typed = try ObjectReader(
            .object(r.entries + [("type", .string("webhook"))]), code: .invalidConfiguration, path: path)
        guard let provider = try readOne(typed, path: path) as? WebhookProvider else {
            throw bad(path, "must be a webhook")
        }
        return provider
    }

    private static let commonKeys: Set<String> = ["type", "name", "baseUrl", "timeoutMs", "connectTimeoutMs", "caFile"]

    private static func readOne(_ r: ObjectReader, path: String) throws(PhoneAuthError) -> any HTTPProvider {
        guard let type = try r.string("type"), types.contains(type) else {
            throw bad("\(path).type", "must be one of \(types.joined(separator: ", "))")
        }
        switch type {
        case "twilio":
            try r.rejectUnknown(
                commonKeys.union([
                    "accountSid", "authToken", "authTokenEnv", "apiKeySid", "apiKeySecret",
                    "apiKeySecretEnv", "from", "messagingServiceSid",
                ]))
            let endpoint = try readEndpoint(r, path: path, type: type, defaultUrl: TwilioProvider.defaultBaseUrl)
            let accountSid = try required(r, "accountSid", path: path, colonFree: true)
            let credentials: String
            if let keySid = try plain(r, "apiKeySid", path: path, colonFree: true) {
                guard let secret = try secret(r, "apiKeySecret", path: path) else {
                    throw bad("\(path).apiKeySecret", "(or apiKeySecretEnv) is required with apiKeySid")
                }
                guard try r.string("authToken") == nil, try r.string("authTokenEnv") == nil else {
                    throw bad("\(path).authToken", "cannot be given with apiKeySid: use one way to sign in")
                }
                credentials = "\(keySid):\(secret)"
            } else {
                guard try r.string("apiKeySecret") == nil, try r.string("apiKeySecretEnv") == nil else {
                    throw bad("\(path).apiKeySid", "is required with apiKeySecret")
                }
                guard let token = try secret(r, "authToken", path: path) else {
                    throw bad("\(path).authToken", "(or authTokenEnv, or apiKeySid and apiKeySecret) is required")
                }
                credentials = "\(accountSid):\(token)"
            }
            let from = try plain(r, "from", path: path)
            let service = try plain(r, "messagingServiceSid", path: path)
            guard (from == nil) != (service == nil) else {
                throw bad("\(path).from", "or messagingServiceSid (exactly one of them) is required")
            }
            return TwilioProvider(
                endpoint: endpoint, accountSid: accountSid, credentials: credentials, from: from,
                messagingServiceSid: service)
        case "vonage":
            try r.rejectUnknown(commonKeys.union(["apiKey", "apiSecret", "apiSecretEnv", "from"]))
            let endpoint = try readEndpoint(r, path: path, type: type, defaultUrl: VonageProvider.defaultBaseUrl)
            let apiKey = try required(r, "apiKey", path: path)
            guard let apiSecret = try secret(r, "apiSecret", path: path) else {
                throw bad("\(path).apiSecret", "(or apiSecretEnv) is required")
            }
            return VonageProvider(
                endpoint: endpoint, apiKey: apiKey, apiSecret: apiSecret, from: try required(r, "from", path: path))
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
            return WebhookProvider(endpoint: endpoint, key: key)
        }
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

    private static func bad(_ key: String, _ problem: String) -> PhoneAuthError { EngineConfig.bad(key, problem) }
}
