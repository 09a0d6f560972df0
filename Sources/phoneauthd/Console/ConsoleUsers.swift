import PhoneAuthCore

/// Users: search by number, uid or display name (searchUsers; listUsers without a query), paged,
/// in the default pool or a tenant; a user's page (providers, factors, passkeys, sessions,
/// claims, tenant, pending events); and the actions: disable, enable, revoke the sessions,
/// unlock the number, delete (confirmed by typing the uid).
struct ConsoleUsers: ConsoleSection {
    let engine: ConsoleEngine

    func get(_ request: ConsoleRequest) async -> ConsoleAnswer {
        guard let uid = request.path.first else { return await search(request) }
        return await user(uid, request)
    }

    func post(_ request: ConsoleRequest) async -> ConsoleAnswer {
        guard request.path.count == 2 else {
            return .notFound
        }
        let uid = request.path[0], action = request.path[1], tenant = request.field("tenant") ?? ""
        let scope = ConsoleFormat.tenant(tenant)
        let result: Result<JSONValue, ConsoleFailure>
        switch action {
        case "disable", "enable":
            result = await engine.call(
                "updateUser", [("uid", .string(uid)), ("disabled", .bool(action == "disable"))] + scope)
        case "revoke": result = await engine.call("revokeRefreshTokens", [("uid", .string(uid))] + scope)
        case "unlock":
            result = await unlock(uid, scope)
        case "delete":
            guard request.field("confirm") == uid else {
                request.audit.record("deleteUser", target: uid, outcome: "unconfirmed")
                return .redirect(path: Self.page(uid, tenant), notice: "Not deleted: type the uid to confirm.")
            }
            result = await engine.call("deleteUser", [("uid", .string(uid))] + scope)
        default: return .notFound
        }
        request.audit.record(action + "User", target: uid, outcome: ConsoleAudit.outcome(result))
        if case let .failure(failure) = result {
            return .redirect(path: Self.page(uid, tenant), notice: "Refused: " + failure.message)
        }
        if action == "delete" { return .redirect(path: "/console/users", notice: "User \(uid) deleted.") }
        return .redirect(path: Self.page(uid, tenant), notice: Self.done[action] ?? "Done.")
    }

    private static let done = [
        "disable": "User disabled: their sign-ins are refused.", "enable": "User enabled.",
        "revoke": "Every session of the user ended.", "unlock": "The number is unlocked.",
    ]

    static func page(_ uid: String, _ tenant: String) -> String {
        "/console/users/" + PercentEncoding.encode(uid)
            + (tenant.isEmpty ? "" : "?tenant=" + PercentEncoding.encode(tenant))
    }

    // MARK: Search

    private func search(_ request: ConsoleRequest) async -> ConsoleAnswer {
        let query = request.query("q") ?? "", tenant = request.query("tenant") ?? ""
        var params: [(String, JSONValue)] = [("maxResults", .int(20))] + ConsoleFormat.tenant(tenant)
        if let token = request.query("pageToken") { params.append(("pageToken", .string(token))) }
        if !query.isEmpty { params.append(("query", .string(query))) }
        let form =
            "<form method=\"get\" action=\"/console/users\" role=\"search\">"
            + HTML.input("q", label: "Number, uid or display name", value: query)
            + HTML.input("tenant", label: "Tenant (empty: the default pool)", value: tenant)
            + "<button type=\"submit\">Search</button></form>"
        let result = await engine.call(query.isEmpty ? "listUsers" : "searchUsers", params)
        guard case let .success(found) = result, let users = found["users"]?.arrayValue else {
            if case let .failure(failure) = result { return .page(title: "Users", body: form + failure.html) }
            return .page(title: "Users", body: form)
        }
        let rows = users.map { user -> [String] in
            let uid = user["uid"]?.stringValue ?? ""
            return [
                HTML.link(Self.page(uid, tenant), uid),
                ConsoleFormat.phone(user["phoneNumber"]?.stringValue, reveal: false),
                HTML.escape(ConsoleFormat.text(user["displayName"])),
                user["disabled"] == .bool(true) ? "disabled" : "active",
                HTML.escape(ConsoleFormat.text(user["metadata"]?["lastSignInTime"])),
            ]
        }
        var body =
            form
            + HTML.table(
                query.isEmpty ? "Users" : "Users matching the search",
                headers: ["uid", "Number", "Name", "State", "Last sign-in"],
                rows: rows)
        if let next = found["pageToken"]?.stringValue {
            var link = "/console/users?pageToken=" + PercentEncoding.encode(next)
            if !query.isEmpty { link += "&q=" + PercentEncoding.encode(query) }
            if !tenant.isEmpty { link += "&tenant=" + PercentEncoding.encode(tenant) }
            body += "<p>" + HTML.link(link, "Next page") + "</p>"
        }
        return .page(title: "Users", body: body)
    }

    // MARK: A user

    private func user(_ uid: String, _ request: ConsoleRequest) async -> ConsoleAnswer {
        let tenant = request.query("tenant") ?? "", scope = ConsoleFormat.tenant(tenant)
        let found = await engine.call("getUser", [("uid", .string(uid))] + scope)
        guard case let .success(result) = found, let user = result["user"] else {
            if case let .failure(failure) = found { return .page(title: "User", body: failure.html, status: 404) }
            return .page(title: "User", body: "", status: 404)
        }
        let reveal = request.query("reveal") == "1"
        if reveal { request.audit.record("revealNumber", target: uid, outcome: "done") }
        let number = user["phoneNumber"]?.stringValue
        var facts: [(String, String)] = [
            ("uid", HTML.escape(uid)),
            (
                "Number",
                ConsoleFormat.phone(number, reveal: reveal)
                    + (number != nil && !reveal
                        ? " "
                            + HTML.link(
                                Self.page(uid, tenant) + (tenant.isEmpty ? "?" : "&") + "reveal=1", "Show number") : "")
            ),
            ("Display name", HTML.escape(ConsoleFormat.text(user["displayName"]))),
            ("State", user["disabled"] == .bool(true) ? "disabled" : "active"),
            ("Tenant", HTML.escape(ConsoleFormat.text(user["tenantId"]))),
            ("Created", HTML.escape(ConsoleFormat.text(user["metadata"]?["creationTime"]))),
            ("Last sign-in", HTML.escape(ConsoleFormat.text(user["metadata"]?["lastSignInTime"]))),
            ("Custom claims", ConsoleFormat.definitions(user["customClaims"] ?? .null)),
        ]
        facts.append(
            (
                "Providers",
                (user["providerData"]?.arrayValue ?? []).map { HTML.escape(ConsoleFormat.text($0["providerId"])) }
                    .joined(separator: ", ")
            ))
        var body = "<dl>" + facts.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" }.joined() + "</dl>"
        body += HTML.table(
            "Second factors", headers: ["Enrollment", "Kind", "Name", "Number", "Enrolled"],
            rows: (user["multiFactor"]?["enrolledFactors"]?.arrayValue ?? []).map { factor in
                [
                    HTML.escape(ConsoleFormat.text(factor["uid"])), HTML.escape(ConsoleFormat.text(factor["factorId"])),
                    HTML.escape(ConsoleFormat.text(factor["displayName"])),
                    ConsoleFormat.phone(factor["phoneNumber"]?.stringValue, reveal: reveal),
                    HTML.escape(ConsoleFormat.text(factor["enrollmentTime"])),
                ]
            })
        body += HTML.table(
            "Passkeys", headers: ["Name", "Credential", "Created", "Last used"],
            rows: (user["passkeyInfo"]?.arrayValue ?? []).map { passkey in
                ["name", "credentialId", "createdAt", "lastUsedAt"].map { HTML.escape(ConsoleFormat.text(passkey[$0])) }
            })
        body += await sessions(uid, scope)
        body += await pendingEvents(uid)
        body += actions(uid, tenant, user: user, session: request.session)
        return .page(title: "User \(uid)", body: body)
    }

    private func sessions(_ uid: String, _ scope: [(String, JSONValue)]) async -> String {
        switch await engine.call("listSessions", [("uid", .string(uid))] + scope) {
        case let .success(result):
            return HTML.table(
                "Sessions", headers: ["Session", "Provider", "Second factor", "Signed in"],
                rows: (result["sessions"]?.arrayValue ?? []).map { session in
                    ["sessionId", "provider", "secondFactor", "authTime"].map {
                        HTML.escape(ConsoleFormat.text(session[$0]))
                    }
                })
        case let .failure(failure): return "<h2>Sessions</h2>" + failure.html
        }
    }

    /// The user's events not yet delivered (a delivered one is gone from the store): its recent
    /// history, when events are configured.
    private func pendingEvents(_ uid: String) async -> String {
        switch await engine.call("listPendingEvents", [("subject", .string(uid)), ("maxResults", .int(50))]) {
        case let .success(result):
            return HTML.table(
                "Events not yet delivered", headers: ["Event", "Type", "Created", "Attempts"],
                rows: (result["events"]?.arrayValue ?? []).map { event in
                    ["id", "type", "createdAt", "attempts"].map { HTML.escape(ConsoleFormat.text(event[$0])) }
                })
        case let .failure(failure): return "<h2>Events not yet delivered</h2>" + failure.html
        }
    }

    private func actions(_ uid: String, _ tenant: String, user: JSONValue, session: ConsoleSessions.Session) -> String {
        let base = "/console/users/" + PercentEncoding.encode(uid) + "/"
        let fields = [("tenant", tenant)]
        let disabled = user["disabled"] == .bool(true)
        var html = "<h2>Actions</h2><div class=\"actions\">"
        html += HTML.form(
            base + (disabled ? "enable" : "disable"), csrf: session.csrf, fields: fields,
            button: disabled ? "Enable" : "Disable")
        html += HTML.form(base + "revoke", csrf: session.csrf, fields: fields, button: "End every session")
        if user["phoneNumber"]?.stringValue != nil {
            html += HTML.form(base + "unlock", csrf: session.csrf, fields: fields, button: "Unlock the number")
        }
        html += "</div><h2>Delete</h2>"
        html += HTML.form(
            base + "delete", csrf: session.csrf, fields: fields,
            inputs: HTML.input("confirm", label: "Type the uid \(uid) to delete this user", required: true),
            button: "Delete \(uid)", danger: true)
        return html
    }

    private func unlock(_ uid: String, _ scope: [(String, JSONValue)]) async -> Result<JSONValue, ConsoleFailure> {
        switch await engine.call("getUser", [("uid", .string(uid))] + scope) {
        case let .success(result):
            guard let number = result["user"]?["phoneNumber"]?.stringValue else {
                return .failure(ConsoleFailure(message: "The user has no number."))
            }
            return await engine.call("unlockPhoneNumber", [("phoneNumber", .string(number))] + scope)
        case let .failure(failure): return .failure(failure)
        }
    }
}
