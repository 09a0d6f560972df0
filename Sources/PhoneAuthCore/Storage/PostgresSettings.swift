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

    /// The URI with its password replaced by ****, for showing to an operator.
    package var redactedURI: String { redact(uri) }
}
