import HTTPTypes
import Hummingbird

/// Where the console is reached, for what its requests must say: the public origin
/// (`server.publicUrl`, when phoneauthd is behind a proxy whose Host header is not the browser's),
/// and whether browsers reach it over HTTPS (server.tls, or a publicUrl in https).
struct ConsoleAccess: Sendable {
    /// `scheme://host[:port]` of server.publicUrl, without a path.
    let publicOrigin: String?
    let https: Bool

    init(publicUrl: String?, tls: Bool) {
        publicOrigin = publicUrl.map { url in
            let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
            return parts.count >= 3 ? parts[0...2].joined(separator: "/") : url
        }
        https = tls || (publicUrl?.hasPrefix("https://") ?? false)
    }

    /// Why a POST is refused as another site's, before anything of it is read: what the browser
    /// says of where it comes from (Sec-Fetch-Site; Origin against this server's origin). A same-
    /// site request still needs the CSRF token.
    func crossSite(_ request: Request) -> Bool {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" {
            return true
        }
        // `null` says nothing (a privacy-minded browser sends it for its own forms too).
        guard let origin = request.headers[HTTPField.Name("Origin")!], origin != "null" else { return false }
        if let publicOrigin, origin == publicOrigin { return false }
        let host = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init)
        return host == nil || host != request.head.authority
    }

    /// Whether the browser came to this machine (http://localhost, 127.0.0.1, [::1]): the only
    /// place a session cookie may go without Secure, and an admin token over plain HTTP.
    func isLocal(_ request: Request) -> Bool {
        let origin = publicOrigin.map { String($0.split(separator: "/").last ?? "") }
        guard let authority = origin ?? request.head.authority else { return false }
        let host =
            authority.hasPrefix("[")
            ? String(authority.prefix { $0 != "]" }) + "]"
            : String(authority.split(separator: ":").first ?? "")
        return ["localhost", "127.0.0.1", "[::1]"].contains(host)
    }
}
