import Glibc

/// Where and how a provider is reached: what every HTTP provider's configuration has in common.
package struct HTTPEndpoint: Sendable {
    /// The provider's name in events (its `name`, else its type).
    package var name: String
    /// The service's root (or, for a webhook, the URL itself), without a trailing slash.
    package var baseUrl: String
    package var timeoutMs = 10_000
    package var connectTimeoutMs = 5_000
    package var caFile: String?
}

extension HTTPEndpoint {
    /// A POST to `url` with this endpoint's timeouts and trusted roots.
    func post(_ url: String, body: [UInt8], headers: [String], basicAuth: String? = nil) -> HTTPRequest {
        HTTPRequest(
            url: url, body: body, headers: headers, basicAuth: basicAuth, caFile: caFile,
            connectTimeoutMs: connectTimeoutMs, timeoutMs: timeoutMs)
    }

    /// `pairs` as application/x-www-form-urlencoded; a nil value leaves its key out.
    static func form(_ pairs: [(String, String?)]) -> [UInt8] {
        Array(
            pairs.compactMap { key, value in value.map { "\(key)=\(PercentEncoding.encode($0))" } }.joined(
                separator: "&"
            ).utf8)
    }

    static func read(
        _ r: ObjectReader, path: String, type: String, defaultUrl: String
    ) throws(PhoneAuthError) -> HTTPEndpoint {
        // The API's path is appended to a base URL: it cannot have a query of its own.
        let url = try r.string("baseUrl") ?? defaultUrl
        if url.contains("?") {
            throw EngineConfig.bad("\(path).baseUrl", "must not have a query (?...): the API's path is appended to it")
        }
        return try read(r, path: path, type: type, url: (url, "baseUrl"))
    }

    /// An endpoint at `url` (its value, its key), with `name`, `timeoutMs`, `connectTimeoutMs`
    /// and `caFile` read from `r`.
    static func read(
        _ r: ObjectReader, path: String, type: String, url: (String, String), defaultTimeoutMs: Int64 = 10_000,
        maxTimeoutMs: Int64 = 120_000
    ) throws(PhoneAuthError) -> HTTPEndpoint {
        let name = try r.string("name") ?? type
        guard Echo.isQuotable(name) else {
            throw EngineConfig.bad(
                "\(path).name", "must be a plain name: a letter, then up to 63 letters, digits, '_', '.' or '-'")
        }
        var endpoint = HTTPEndpoint(name: name, baseUrl: try checkURL(url.0, key: "\(path).\(url.1)"))
        endpoint.timeoutMs = Int(try r.int("timeoutMs", in: 100...maxTimeoutMs) ?? defaultTimeoutMs)
        endpoint.connectTimeoutMs = Int(
            try r.int("connectTimeoutMs", in: 100...60_000) ?? Int64(min(endpoint.connectTimeoutMs, endpoint.timeoutMs))
        )
        if let caFile = try r.string("caFile") {
            guard !caFile.isEmpty, access(caFile, R_OK) == 0 else {
                throw EngineConfig.bad("\(path).caFile", "must name a PEM file this process can read")
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
            throw EngineConfig.bad(key, problem)
        }
        let rest: Substring
        if url.hasPrefix("https://") {
            rest = url.dropFirst(8)
        } else if url.hasPrefix("http://") {
            rest = url.dropFirst(7)
        } else {
            throw EngineConfig.bad(key, problem)
        }
        let authority = rest.prefix(while: { $0 != "/" && $0 != "?" })
        // A host name, an address (IPv6 in brackets) and a port: nothing a header or a policy could misread.
        guard !authority.isEmpty,
            authority.utf8.allSatisfy({ ASCII.isLetterOrDigit($0) || [45, 46, 58, 91, 93].contains($0) })
        else { throw EngineConfig.bad(key, problem) }
        if url.hasPrefix("http://") {
            let host =
                authority.hasPrefix("[")
                ? authority.prefix(while: { $0 != "]" }) + "]" : authority.prefix(while: { $0 != ":" })
            let port = authority.dropFirst(host.count)
            guard ["localhost", "127.0.0.1", "[::1]"].contains(String(host)), port.isEmpty || port.hasPrefix(":") else {
                throw EngineConfig.bad(key, problem)
            }
        }
        var trimmed = url
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }
}
