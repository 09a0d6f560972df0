import HTTPTypes
import Hummingbird
import NIOCore
import PhoneAuthCore
import PhoneAuthKit

/// The request context: Hummingbird's core storage plus the peer's address.
struct ServerContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// Every request: find its route, check its key or admin token, run it, log and count it.
struct Server: HTTPResponder {
    let config: ServerConfig
    let projectId: String
    let auth: PhoneAuth
    let toolkit: IdentityToolkit
    let admin: IdentityToolkitAdmin
    let tenants: TenantAdmin
    let own: OwnMethods
    let emulator: EmulatorSupport?
    let observability: Observability
    /// The captcha page this server serves (captcha.provider with a siteKey, no captcha.pageUrl).
    let captchaPage: CaptchaPage?
    /// The operator's console (server.console), or nil.
    let console: Console?

    /// Where the captcha page is served.
    static let captchaPath = "/phoneauth/captcha"

    func respond(to request: Request, context: ServerContext) async throws -> Response {
        let started = ContinuousClock.now
        let clientIp = clientAddress(request, peer: context.remoteAddress)
        var request = request
        let (route, reply) = await dispatch(&request, clientIp: clientIp)
        observability.request(
            method: request.method.rawValue, route: route, status: reply.status, started: started, clientIp: clientIp)
        return reply.response
    }

    /// The end user's address: the socket's, or, when the socket is a trusted proxy, the last
    /// address in X-Forwarded-For that is not one.
    func clientAddress(_ request: Request, peer: SocketAddress?) -> String {
        let socket = peer?.ipAddress ?? "0.0.0.0"
        guard !config.trustedProxies.isEmpty, let address = IPAddress(socket), isTrusted(address),
            let forwarded = request.headers[HTTPField.Name("X-Forwarded-For")!]
        else { return socket }
        for hop in forwarded.split(separator: ",").reversed() {
            let text = String(hop).trimmingSpaces
            guard let hopAddress = IPAddress(text) else { return socket }
            if !isTrusted(hopAddress) { return text }
        }
        return socket
    }

    /// The request's User-Agent for the blocking hooks (empty when it has none), cut to the
    /// length the engine takes: a long header is no reason to refuse a sign-in.
    static func userAgent(_ request: Request) -> String {
        var agent = Substring(request.headers[.userAgent] ?? "")
        while agent.utf8.count > ClientAddress.maxUserAgentBytes { agent.removeLast() }
        return String(agent)
    }

    private func isTrusted(_ address: IPAddress) -> Bool { config.trustedProxies.contains { $0.contains(address) } }

    // MARK: Routing

    private func dispatch(_ request: inout Request, clientIp: String) async -> (String, Reply) {
        let path = request.uri.path, method = request.method
        switch path {
        case "/healthz": return ("healthz", method == .get ? await health() : Self.wrongMethod("GET"))
        case "/metrics":
            guard method == .get else { return ("metrics", Self.wrongMethod("GET")) }
            if let backlog = try? await auth.eventBacklog() {
                observability.eventBacklog(count: backlog.count, oldestAgeSeconds: backlog.oldestAgeSeconds)
            }
            let (status, statistics) = await auth.call("getPumpingStatistics", paramsJSON: "{}")
            if status == 0, let parsed = try? JSONCodec.parse(statistics) {
                observability.pumpingCounts(
                    parsed["countries"]?.arrayValue ?? [], channels: parsed["channels"]?.arrayValue ?? [])
            }
            return ("metrics", Reply(text: observability.metricsText, contentType: "text/plain; version=0.0.4"))
        case "/.well-known/jwks.json":
            guard method == .get else { return ("jwks", Self.wrongMethod("GET")) }
            var reply = Reply(text: auth.jwksJSON, contentType: Reply.jsonType)
            reply.headers = [("Cache-Control", "public, max-age=300")]
            return ("jwks", reply)
        case Self.captchaPath:
            return ("captcha", method == .get ? captcha(query: Self.query(of: request)) : Self.wrongMethod("GET"))
        default: break
        }
        if path == Console.prefix || path.hasPrefix(Console.prefix + "/") {
            guard let console else {
                return (
                    "unknown",
                    ToolkitError(404, "NOT_FOUND", "No console is served here: configure server.console.").reply
                )
            }
            return ("console", await console.handle(&request, clientIp: clientIp))
        }
        if path.hasPrefix(ReceiptRoute.prefix) {
            return ("phoneauth:receipts", await ReceiptRoute(auth: auth, config: config).handle(&request))
        }
        if path.hasPrefix("/phoneauth/v1/") {
            let name = String(path.dropFirst("/phoneauth/v1/".count))
            let route = PhoneAuth.hasMethod(name) ? "phoneauth:\(name)" : "phoneauth:unknown"
            return (route, await ownMethod(name, &request, clientIp: clientIp))
        }
        if let emulator, path.hasPrefix("/emulator/v1/projects/"), path.hasSuffix("/verificationCodes") {
            let session = Self.query(of: request).first(where: { $0.0 == "sessionInfo" })?.1
            return (
                "emulator:verificationCodes",
                method == .get ? Reply(json: emulator.verificationCodes(sessionInfo: session)) : Self.wrongMethod("GET")
            )
        }
        guard let target = ToolkitRoute(path: path, method: method) else {
            return ("unknown", ToolkitError(404, "NOT_FOUND", "No such endpoint; see docs/SERVER.md.").reply)
        }
        return (target.name, await toolkitCall(target, &request, clientIp: clientIp))
    }

    /// The request's query items (none when it is malformed). Parsed only where a route reads
    /// them: most requests have none, or only an API key that is not checked without apiKeys.
    static func query(of request: Request) -> [(String, String)] {
        guard let query = request.uri.query, !query.isEmpty else { return [] }
        return PercentEncoding.queryItems(query) ?? []
    }

    /// The captcha page for the query getCaptchaChallenge made; 404 when this server serves none.
    private func captcha(query: [(String, String)]) -> Reply {
        guard let captchaPage else {
            return ToolkitError(
                404, "NOT_FOUND", "No captcha page is served here: configure captcha.provider with a siteKey."
            ).reply
        }
        let page = captchaPage.render(query: query, nonce: Base64URL.encode(SecureBytes.random(count: 18)))
        var reply = Reply(status: page.status, text: page.html, contentType: "text/html; charset=utf-8")
        reply.headers = page.headers
        return reply
    }

    private func toolkitCall(_ target: ToolkitRoute, _ request: inout Request, clientIp: String) async -> Reply {
        guard request.method == target.method else { return Self.wrongMethod(target.allow) }
        // The client routes' POSTs read no query but the API key (checkApiKey reads that itself).
        let readsQuery = target.method == .get || target.project != nil
        let query = readsQuery ? Self.query(of: request) : []
        do {
            if let project = target.project, project != projectId {
                throw ToolkitError(404, "PROJECT_NOT_FOUND", "This server serves project \(projectId).")
            }
            // The route takes the access of the engine method it performs: admin unless that says otherwise.
            switch PhoneAuth.method(named: target.engineMethod)?.access ?? .admin {
            case .admin:
                guard isAdmin(request) else {
                    throw ToolkitError(
                        403, "INSUFFICIENT_PERMISSION",
                        "Admin calls need an admin token: Authorization: Bearer <token>.")
                }
            case .client: try checkApiKey(request, query: readsQuery ? query : nil, service: target.service)
            case .library: throw ToolkitError(403, "OPERATION_NOT_ALLOWED", "Not offered over HTTP.")
            }
            // A GET's parameters are its query's (recaptchaConfig's tenantId).
            let body =
                target.method == .get
                ? JSONValue.object(query.map { ($0, .string($1)) })
                : try await readBody(&request, allowForm: target.operation == "token")
            let call = ToolkitCall(
                body: body, clientIp: clientIp, userAgent: Self.userAgent(request), languageCode: languageCode(request))
            let result: JSONValue
            if target.project == nil {
                result = try await toolkit.handle(target.operation, call)
            } else if target.operation.hasPrefix("tenants:") {
                result = try await tenants.handle(target.operation, call, tenant: target.tenant, query: query)
            } else if let tenant = try target.tenant ?? call.tenantId {
                // The tenant of the path, or of the body (Identity Toolkit's admin requests may
                // name it there): both must agree.
                if let named = try call.tenantId, named != tenant {
                    throw ToolkitError(400, "TENANT_ID_MISMATCH", "The body's tenantId is not the path's tenant.")
                }
                result = try await IdentityToolkitAdmin(auth: try TenantAdmin.view(auth, tenant))
                    .handle(target.operation, call, query: query)
            } else {
                result = try await admin.handle(target.operation, call, query: query)
            }
            return Reply(json: result)
        } catch {
            return ToolkitError.from(error).reply
        }
    }

    /// A method of the engine's catalogue, with the access it declares: what the catalogue does
    /// not know is 404, and an admin method needs an admin token.
    private func ownMethod(_ name: String, _ request: inout Request, clientIp: String) async -> Reply {
        guard request.method == .post else { return Self.wrongMethod("POST") }
        guard let method = PhoneAuth.method(named: name) else {
            return OwnMethods.errorReply(PhoneAuthCore.PhoneAuthError.unknownMethod(name).jsonValue)
        }
        if let refusal = refusal(of: method.access, request) { return refusal }
        do {
            return await own.handle(
                method, params: try await readBody(&request), clientIp: clientIp, userAgent: Self.userAgent(request))
        } catch let error as ToolkitError {
            var reply = OwnMethods.error(.invalidArgument, error.detail ?? error.code)
            reply.status = error.status
            return reply
        } catch {
            return OwnMethods.errorReply(PhoneAuthCore.PhoneAuthError.from(error, during: name).jsonValue)
        }
    }

    /// Why a request may not call a method of this access, as the native route answers it; nil
    /// when it may.
    private func refusal(of access: PhoneAuthKit.Method.Access, _ request: Request) -> Reply? {
        switch access {
        case .library:
            return OwnMethods.error(
                .operationNotAllowed,
                "This method is not offered over HTTP; call it through the library or the phoneauth command.")
        case .admin:
            guard isAdmin(request) else {
                return OwnMethods.error(
                    .insufficientPermission, "This method needs an admin token: Authorization: Bearer <token>.")
            }
            return nil
        case .client:
            do { try checkApiKey(request, service: .identityToolkit) } catch {
                return OwnMethods.error(.invalidApiKey, "API key not valid.")
            }
            return nil
        }
    }

    // MARK: Checks

    /// Constant-time comparison against every token, so timing says nothing about which is close.
    private func isAdmin(_ request: Request) -> Bool {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return false }
        let presented = Array(header.utf8.dropFirst(7))
        // firebase-admin's emulator mode sends `Bearer owner`: accepted in development mode only.
        if config.emulatorCompat && presented == Array("owner".utf8) { return true }
        return AdminTokens.match(presented, in: config.adminTokens) != nil
    }

    /// `query`: the request's query items when the caller has them already.
    private func checkApiKey(_ request: Request, query: [(String, String)]? = nil, service: GoogleService) throws {
        guard !config.apiKeys.isEmpty else { return }
        let key =
            (query ?? Self.query(of: request)).first(where: { $0.0 == "key" })?.1
            ?? request.headers[HTTPField.Name("X-Goog-Api-Key")!]
        guard let key, config.apiKeys.contains(key) else { throw ToolkitError.invalidApiKey(service: service) }
    }

    private func languageCode(_ request: Request) -> String? {
        // A header the client's platform sets: one that is not a language tag is ignored, not refused.
        (try? LanguageTag(request.headers[HTTPField.Name("X-Firebase-Locale")!]))??.text
    }

    /// The body as a JSON object: JSON, or where `allowForm` a form (securetoken accepts both); empty is {}.
    private func readBody(_ request: inout Request, allowForm: Bool = false) async throws -> JSONValue {
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: config.maxBodyBytes) } catch is NIOTooManyBytesError {
            throw ToolkitError(413, "PAYLOAD_TOO_LARGE", "The body is larger than \(config.maxBodyBytes) bytes.")
        } catch {
            // Logged and counted as such (nobody reads the answer: the connection is gone).
            throw ToolkitError(
                408, "REQUEST_TIMEOUT",
                "The body did not arrive whole: the client took longer than server.bodyTimeoutSeconds, or went away.")
        }
        if buffer.readableBytes == 0 { return .object([]) }
        let bytes = Array(buffer.readableBytesView)
        if allowForm, request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true {
            guard let items = PercentEncoding.queryItems(String(decoding: bytes, as: UTF8.self)) else {
                throw ToolkitError(400, "INVALID_ARGUMENT", "The form body is malformed.")
            }
            return .object(items.map { ($0.0, .string($0.1)) })
        }
        let value: JSONValue
        do { value = try JSONCodec.parse(bytes: bytes) } catch {
            throw ToolkitError(
                400, "INVALID_ARGUMENT",
                "Invalid JSON payload received: \(error.message) (line \(error.line), column \(error.column)).")
        }
        guard case .object = value else {
            throw ToolkitError(400, "INVALID_ARGUMENT", "The body must be a JSON object, not \(value.typeName).")
        }
        return value
    }

    private func health() async -> Reply {
        do {
            _ = try await auth.listUsers(maxResults: 1, pageToken: nil)
            return Reply(json: .object([("status", .string("ok"))]))
        } catch {
            return Reply(
                status: 503,
                json: .object([
                    ("status", .string("unavailable")), ("message", .string(ToolkitError.from(error).detail ?? "")),
                ]))
        }
    }

    static func wrongMethod(_ allowed: String) -> Reply {
        var reply = ToolkitError(405, "METHOD_NOT_ALLOWED", "Use \(allowed).").reply
        reply.headers.append(("Allow", allowed))
        return reply
    }
}
