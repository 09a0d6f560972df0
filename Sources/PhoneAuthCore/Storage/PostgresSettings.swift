/// How to reach a PostgreSQL database: the connection URI from the configuration and the
/// `postgres` options. The URI's password never leaves this value: `location` names host and
/// database only, and `redact` takes the password out of any text.
package struct PostgresSettings: Sendable {
    package var uri: String
    package var poolSize = 4
    package var schema = "phoneauth"
    package var connectTimeoutSeconds = 5
    package var statementTimeoutMs = 5000

    package init(uri: String) { self.uri = uri }

    package static func isURI(_ database: String) -> Bool {
        database.hasPrefix("postgresql://") || database.hasPrefix("postgres://")
    }

    /// A schema name used unquoted in SQL and in the server's options: lower case, digits and _.
    package static func isValidSchema(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 63, !(48...57).contains(first) else { return false }
        return name.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 }
    }

    private var parts: (userInfo: Substring, host: Substring, path: Substring, query: Substring) {
        let rest = uri[(uri.firstRange(of: "://")?.upperBound ?? uri.startIndex)...]
        let beforeQuery = rest.prefix { $0 != "?" }
        let query = rest.dropFirst(beforeQuery.count).dropFirst()
        let authority = beforeQuery.prefix { $0 != "/" }
        let path = beforeQuery.dropFirst(authority.count).dropFirst()
        guard let at = authority.lastIndex(of: "@") else { return ("", authority, path, query) }
        return (authority[..<at], authority[authority.index(after: at)...], path, query)
    }

    /// "host:port/database", for messages.
    package var location: String {
        let (_, host, path, _) = parts
        return (host.isEmpty ? "local socket" : String(host)) + "/"
            + (path.isEmpty ? "(default database)" : String(path))
    }

    /// The passwords the URI carries (in its user info or a password= parameter), as written
    /// and decoded.
    private var passwords: [String] {
        let (userInfo, _, _, query) = parts
        var found: [String] = []
        if let colon = userInfo.firstIndex(of: ":") { found.append(String(userInfo[userInfo.index(after: colon)...])) }
        for parameter in query.split(separator: "&") where parameter.hasPrefix("password=") {
            found.append(String(parameter.dropFirst("password=".count)))
        }
        found += found.compactMap { PercentEncoding.decode($0) }
        return found.filter { !$0.isEmpty }
    }

    /// `text` with every occurrence of the password replaced by ****.
    package func redact(_ text: String) -> String {
        passwords.reduce(text) { $0.replacingEvery($1, with: "****") }
    }

    /// The URI's query parameters (`?connect_timeout=2&…`), percent-decoded.
    package var uriParameters: [(name: String, value: String)] {
        parts.query.split(separator: "&").compactMap { item in
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentEncoding.decode(String(pair[0])) else { return nil }
            return (name, pair.count == 2 ? PercentEncoding.decode(String(pair[1])) ?? "" : "")
        }
    }

    /// Whether the URI sets the connection parameter `name` (the engine then leaves it as it is).
    package func uriSets(_ name: String) -> Bool { uriParameters.contains { $0.name == name } }

    /// Takes what the URI says about connecting, so nothing it says is overridden in silence: its
    /// `connect_timeout` becomes the timeout unless `postgres.connectTimeoutSeconds` says
    /// another (`configured`), which is refused as a conflict. Parameters the engine must set
    /// itself are refused: `options` (the engine's schema and timeouts) and a `client_encoding`
    /// other than UTF8.
    package mutating func adoptURIParameters(configuredConnectTimeout configured: Int?) throws(PhoneAuthError) {
        func bad(_ message: String) -> PhoneAuthError {
            PhoneAuthError(
                .invalidConfiguration, "The database URI's \(message)", details: [("key", .string("database"))])
        }
        for (name, value) in uriParameters {
            switch name {
            case "connect_timeout":
                guard let seconds = Int(value), (1...300).contains(seconds) else {
                    throw bad("connect_timeout must be a whole number of seconds from 1 to 300.")
                }
                if let configured, configured != seconds {
                    throw PhoneAuthError(
                        .invalidConfiguration,
                        "The database URI's connect_timeout (\(seconds) s) and postgres.connectTimeoutSeconds "
                            + "(\(configured) s) disagree: give the timeout in one place.",
                        details: [("key", .string("postgres.connectTimeoutSeconds"))])
                }
                connectTimeoutSeconds = seconds
            case "options":
                throw bad(
                    "options cannot be set: the engine sets the session's options itself (postgres.schema, "
                        + "postgres.statementTimeoutMs).")
            case "client_encoding" where value.uppercased() != "UTF8":
                throw bad("client_encoding must be UTF8, the engine's.")
            default: break
            }
        }
    }

    /// The URI with its password replaced by ****, for showing to an operator.
    package var redactedURI: String { redact(uri) }
}
