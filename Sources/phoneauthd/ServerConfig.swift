import Glibc
import PhoneAuthCore

/// The `server` section of phoneauthd's configuration; the rest of the file is the engine's.
/// Environment variables override the file: PHONEAUTHD_HOST, PHONEAUTHD_PORT,
/// PHONEAUTHD_API_KEYS and PHONEAUTHD_ADMIN_TOKENS (comma-separated lists).
struct ServerConfig {
    var host = "127.0.0.1"
    var port = 9099
    /// Accepted `?key=` values of client calls; empty accepts any.
    var apiKeys: [String] = []
    /// Bearer tokens of admin calls; each at least 16 characters, so a guessable one cannot be set.
    var adminTokens: [String] = []
    var trustedProxies: [CIDR] = []
    var certificateFile: String?
    var privateKeyFile: String?
    var maxBodyBytes = 64 * 1024
    var emulatorCompat = false
    /// The address clients reach this server at (behind a proxy, the proxy's), for the URL of the
    /// captcha page it serves; nil: the address it listens on.
    var publicUrl: String?
    /// getProjectConfig's answer.
    var authorizedDomains: [String] = []
    /// Threads that run the engine's blocking calls.
    var threads = 16
    var accessLog = true
    /// Deadlines on clients (RequestTimeoutHandler): a keep-alive connection waiting for its next
    /// request, a request's head (from the accept, or its first byte), its body (from the head).
    var idleTimeoutSeconds = 60
    var headerTimeoutSeconds = 15
    var bodyTimeoutSeconds = 30
    /// Open connections at most; beyond them the listening socket is not read, so newcomers wait
    /// in the kernel's backlog (and hold no descriptor) until one closes.
    var maxConnections = 512
    /// How long SIGTERM waits for the requests in flight before it closes their connections.
    var shutdownTimeoutSeconds = 10
    /// The operator's console at /console (server.console); nil: not served.
    var console: ConsoleSettings?

    static let keys: Set<String> = [
        "host", "port", "apiKeys", "adminTokens", "trustedProxies", "tls", "maxBodyBytes", "emulatorCompat",
        "authorizedDomains", "threads", "accessLog", "publicUrl", "idleTimeoutSeconds", "headerTimeoutSeconds",
        "bodyTimeoutSeconds", "maxConnections", "shutdownTimeoutSeconds", "console",
    ]

    /// Splits a configuration into the server's part and the engine's.
    static func read(
        _ json: JSONValue, environment: (String) -> String? = EngineConfig.environment
    ) throws -> (ServerConfig, JSONValue) {
        guard case let .object(pairs) = json else {
            throw bad("", "The configuration must be a JSON object.")
        }
        var c = ServerConfig()
        if let section = pairs.first(where: { $0.0 == "server" })?.1 {
            let r = try ObjectReader(section, code: .invalidConfiguration, path: "server", what: "configuration")
            try r.rejectUnknown(keys)
            c.host = try r.string("host") ?? c.host
            c.port = Int(try r.int("port", in: 0...65_535) ?? Int64(c.port))
            c.apiKeys = try strings(r, "apiKeys")
            c.adminTokens = try strings(r, "adminTokens")
            if let console = try r.object("console") { c.console = try ConsoleSettings.read(console) }
            c.trustedProxies = try strings(r, "trustedProxies").map { text in
                guard let cidr = CIDR(text) else {
                    throw bad(
                        "server.trustedProxies",
                        "holds \(Echo.quoted(text, or: "an entry")), which is not an address or CIDR block.")
                }
                return cidr
            }
            if let tls = try r.object("tls") {
                try tls.rejectUnknown(["certificateFile", "privateKeyFile"])
                c.certificateFile = try tls.string("certificateFile")
                c.privateKeyFile = try tls.string("privateKeyFile")
                guard c.certificateFile?.isEmpty == false, c.privateKeyFile?.isEmpty == false else {
                    throw bad("server.tls", "needs both 'certificateFile' and 'privateKeyFile'.")
                }
            }
            c.maxBodyBytes = Int(try r.int("maxBodyBytes", in: 1024...(16 << 20)) ?? Int64(c.maxBodyBytes))
            c.emulatorCompat = try r.bool("emulatorCompat") ?? false
            c.authorizedDomains = try strings(r, "authorizedDomains")
            if let url = try r.string("publicUrl") {
                guard !url.contains("?") else { throw bad("server.publicUrl", "must not have a query (?...).") }
                c.publicUrl = try HTTPEndpoint.checkURL(url, key: "server.publicUrl")
            }
            c.threads = Int(try r.int("threads", in: 1...256) ?? Int64(c.threads))
            c.accessLog = try r.bool("accessLog") ?? true
            c.idleTimeoutSeconds = Int(try r.int("idleTimeoutSeconds", in: 1...3600) ?? Int64(c.idleTimeoutSeconds))
            c.headerTimeoutSeconds = Int(
                try r.int("headerTimeoutSeconds", in: 1...600) ?? Int64(c.headerTimeoutSeconds))
            c.bodyTimeoutSeconds = Int(try r.int("bodyTimeoutSeconds", in: 1...3600) ?? Int64(c.bodyTimeoutSeconds))
            c.maxConnections = Int(try r.int("maxConnections", in: 1...1_000_000) ?? Int64(c.maxConnections))
            c.shutdownTimeoutSeconds = Int(
                try r.int("shutdownTimeoutSeconds", in: 0...3600) ?? Int64(c.shutdownTimeoutSeconds))
        }
        if let host = environment("PHONEAUTHD_HOST") { c.host = host }
        if let port = environment("PHONEAUTHD_PORT") {
            guard let value = Int(port), (0...65_535).contains(value) else {
                throw bad("PHONEAUTHD_PORT", "must be a port number.")
            }
            c.port = value
        }
        if let keys = environment("PHONEAUTHD_API_KEYS") { c.apiKeys = list(keys) }
        if let tokens = environment("PHONEAUTHD_ADMIN_TOKENS") { c.adminTokens = list(tokens) }
        try c.check()
        return (c, .object(pairs.filter { $0.0 != "server" }))
    }

    private func check() throws {
        guard IPAddress(host) != nil || host == "localhost" else {
            throw Self.bad("server.host", "must be an IP address to listen on (or localhost).")
        }
        if emulatorCompat && !isLoopback {
            throw Self.bad(
                "server.emulatorCompat",
                "is only allowed when server.host is a loopback address: "
                    + "it accepts unsigned tokens and a fixed admin token."
            )
        }
        if console != nil && adminTokens.isEmpty {
            throw Self.bad("server.console", "needs server.adminTokens: operators sign in to the console with one.")
        }
        if adminTokens.contains(where: { $0.utf8.count < 16 }) {
            throw Self.bad("server.adminTokens", "holds a token shorter than 16 characters; use long random tokens.")
        }
    }

    /// Listening on every address (0.0.0.0 or ::): no URL a client could use names it.
    var listensEverywhere: Bool { IPAddress(host)?.bytes.allSatisfy { $0 == 0 } == true }

    var isLoopback: Bool { host == "localhost" || IPAddress(host)?.isLoopback == true }

    private static func strings(_ r: ObjectReader, _ key: String) throws -> [String] {
        guard let value = r.value(key) else { return [] }
        guard case let .array(items) = value else { throw bad("server.\(key)", "must be an array of strings.") }
        return try items.map { item in
            guard let text = item.stringValue, !text.isEmpty else {
                throw bad("server.\(key)", "must hold only non-empty strings.")
            }
            return text
        }
    }

    private static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
    }

    static func bad(_ key: String, _ problem: String) -> PhoneAuthCore.PhoneAuthError {
        PhoneAuthCore.PhoneAuthError(
            .invalidConfiguration, key.isEmpty ? problem : "The configuration key '\(key)' \(problem)",
            details: key.isEmpty ? [] : [("key", .string(key))])
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
