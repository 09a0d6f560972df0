import HTTPTypes
import Hummingbird
import NIOCore
import PhoneAuthCore
import PhoneAuthKit

/// The operator's console at /console (server.console): pages phoneauthd renders, with no script
/// and nothing from another origin. An operator signs in with an admin token, which becomes a
/// session cookie (HttpOnly, SameSite=Strict, Secure outside localhost); every state change is a
/// POST carrying the session's CSRF token, from this origin, and is recorded (ConsoleAudit).
struct Console: Sendable {
    static let prefix = "/console"
    static let cookie = "phoneauth_console"

    let settings: ConsoleSettings
    let sessions: ConsoleSessions
    let adminTokens: [String]
    let access: ConsoleAccess
    let engine: ConsoleEngine
    let sections: [String: any ConsoleSection]

    /// `providerHealth`: the SMS providers' breakers as the engine's events told them (Observability).
    init(
        settings: ConsoleSettings, adminTokens: [String], access: ConsoleAccess, auth: PhoneAuth,
        providerHealth: @escaping @Sendable () -> [ProviderHealth] = { [] }
    ) {
        self.settings = settings
        sessions = ConsoleSessions(settings: settings)
        self.adminTokens = adminTokens
        self.access = access
        engine = ConsoleEngine(auth: auth)
        sections = ConsoleSections.all(engine, providerHealth: providerHealth)
    }

    func handle(_ request: inout Request, clientIp: String) async -> Reply {
        let path = request.uri.path, method = request.method
        let query = PercentEncoding.queryItems(request.uri.query ?? "") ?? []
        if path == Self.prefix + "/console.css" {
            guard method == .get else { return Self.wrongMethod("GET") }
            var reply = Reply(text: ConsoleLayout.stylesheet, contentType: "text/css; charset=utf-8")
            reply.headers = [("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff")]
            return reply
        }
        guard method == .get || method == .post else { return Self.wrongMethod("GET, POST") }
        if method == .post, access.crossSite(request) {
            return Self.forbidden("Refused: the form was posted from another site.")
        }
        let form = method == .post ? await Self.form(&request) : []
        if path == Self.prefix + "/login" {
            return method == .get
                ? loginPage(status: 200, said: nil) : logIn(form, request: request, clientIp: clientIp)
        }
        guard let session = sessions.session(Self.cookie(of: request)) else {
            return method == .get ? Self.redirect(Self.prefix + "/login") : Self.forbidden("Sign in again.")
        }
        let audit = ConsoleAudit(actor: session.actor, clientIp: clientIp)
        if method == .post {
            guard let csrf = form.first(where: { $0.0 == "csrf" })?.1,
                SecureBytes.equal(Array(csrf.utf8), Array(session.csrf.utf8))
            else {
                audit.record("post", target: path, outcome: "forged")
                return Self.forbidden("This form is not one the console gave you (its CSRF token is wrong).")
            }
            if path == Self.prefix + "/logout" { return logOut(session, audit: audit) }
        }
        let segments = path.dropFirst(Self.prefix.count).split(separator: "/").map {
            PercentEncoding.decode(String($0)) ?? String($0)
        }
        guard let name = segments.first else { return await overview(session) }
        guard let section = sections[name] else {
            return render(.notFound, session: session, section: nil, notice: nil)
        }
        let console = ConsoleRequest(
            path: Array(segments.dropFirst()), query: query, form: form, session: session, audit: audit)
        let answer = method == .get ? await section.get(console) : await section.post(console)
        return render(answer, session: session, section: name, notice: console.query("notice"))
    }

    // MARK: Signing in and out

    private func loginPage(status: Int, said: String?) -> Reply {
        let body =
            (said.map { "<p class=\"error\" role=\"alert\">\(HTML.escape($0))</p>" } ?? "")
            + "<p>Sign in with one of phoneauthd's admin tokens (<code>server.adminTokens</code>).</p>"
            + "<form method=\"post\" action=\"/console/login\">"
            + HTML.input("token", label: "Admin token", type: "password", required: true)
            + "<button type=\"submit\">Sign in</button></form>"
        return Self.html(status: status, ConsoleLayout.page(title: "Sign in", body: body, session: nil))
    }

    private func logIn(_ form: [(String, String)], request: Request, clientIp: String) -> Reply {
        // An admin token never crosses a network in clear: plain HTTP serves only this machine.
        guard access.https || access.isLocal(request) else {
            return loginPage(
                status: 403,
                said: "Sign in over HTTPS: serve phoneauthd with server.tls, or behind a proxy with "
                    + "server.publicUrl https://….")
        }
        guard sessions.maySignIn(from: clientIp) else {
            return loginPage(status: 429, said: "Too many wrong tokens from this address; try again in 15 minutes.")
        }
        let presented = Array((form.first(where: { $0.0 == "token" })?.1 ?? "").utf8)
        guard let token = AdminTokens.match(presented, in: adminTokens) else {
            // Recorded once per address in the window's first failures, so a guesser cannot flood the log.
            if sessions.failedSignIn(from: clientIp) {
                ConsoleAudit(actor: "unknown", clientIp: clientIp).record(
                    "signIn", target: "console", outcome: "refused")
            }
            return loginPage(status: 401, said: "That is not an admin token of this server.")
        }
        // Signing in again ends the session the browser had.
        if let earlier = Self.cookie(of: request) { sessions.close(earlier) }
        let session = sessions.open(token: token)
        ConsoleAudit(actor: session.actor, clientIp: clientIp).record("signIn", target: "console", outcome: "done")
        var reply = Self.redirect(Self.prefix)
        var cookie =
            "\(Self.cookie)=\(session.id); Path=\(Self.prefix); HttpOnly; SameSite=Strict; "
            + "Max-Age=\(settings.sessionMinutes * 60)"
        if !access.isLocal(request) { cookie += "; Secure" }
        reply.headers.append(("Set-Cookie", cookie))
        return reply
    }

    private func logOut(_ session: ConsoleSessions.Session, audit: ConsoleAudit) -> Reply {
        sessions.close(session.id)
        audit.record("signOut", target: "console", outcome: "done")
        var reply = Self.redirect(Self.prefix + "/login")
        reply.headers.append(
            ("Set-Cookie", "\(Self.cookie)=; Path=\(Self.prefix); HttpOnly; SameSite=Strict; Max-Age=0"))
        return reply
    }

    // MARK: Pages

    /// The engine's status (getStatus), as the landing page.
    private func overview(_ session: ConsoleSessions.Session) async -> Reply {
        let body: String
        switch await engine.call("getStatus") {
        case let .success(status): body = "<h2>Engine status</h2>" + ConsoleFormat.definitions(status)
        case let .failure(failure): body = failure.html
        }
        return render(.page(title: "Overview", body: body), session: session, section: nil, notice: nil)
    }

    private func render(
        _ answer: ConsoleAnswer, session: ConsoleSessions.Session, section: String?, notice: String?
    )
        -> Reply
    {
        switch answer {
        case let .page(title, body, status):
            return Self.html(
                status: status,
                ConsoleLayout.page(title: title, body: body, session: session, section: section, notice: notice))
        case let .redirect(path, notice):
            let separator = path.contains("?") ? "&" : "?"
            return Self.redirect(path + separator + "notice=" + PercentEncoding.encode(notice))
        }
    }

    // MARK: Requests and replies

    private static func form(_ request: inout Request) async -> [(String, String)] {
        guard request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true,
            let buffer = try? await request.collectBody(upTo: 64 * 1024)
        else { return [] }
        return PercentEncoding.queryItems(String(decoding: buffer.readableBytesView, as: UTF8.self)) ?? []
    }

    private static func cookie(of request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpaces }
                if parts.count == 2, parts[0] == cookie { return parts[1] }
            }
        }
        return nil
    }

    static func html(status: Int = 200, _ text: String) -> Reply {
        var reply = Reply(status: status, text: text, contentType: "text/html; charset=utf-8")
        reply.headers = ConsoleLayout.headers
        return reply
    }

    private static func redirect(_ location: String) -> Reply {
        var reply = Reply(status: 303, text: "", contentType: "text/plain; charset=utf-8")
        reply.headers = ConsoleLayout.headers + [("Location", location)]
        return reply
    }

    private static func forbidden(_ why: String) -> Reply {
        html(
            status: 403,
            ConsoleLayout.page(title: "Refused", body: "<p class=\"error\">\(HTML.escape(why))</p>", session: nil))
    }

    private static func wrongMethod(_ allow: String) -> Reply {
        var reply = Reply(status: 405, text: "Method not allowed.", contentType: "text/plain; charset=utf-8")
        reply.headers = [("Allow", allow)]
        return reply
    }
}
