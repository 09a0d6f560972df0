import PhoneAuthCore

/// Tenants: the list (listTenants, paged) with a form to create one (createTenant), and a
/// tenant's page: what it is, a link to its users, the form that edits its settings
/// (updateTenant; ConsoleTenantSettings reads and writes that form) and its deletion (refused by
/// the engine while it has users; confirmed by typing the tenant ID).
struct ConsoleTenants: ConsoleSection {
    let engine: ConsoleEngine

    func get(_ request: ConsoleRequest) async -> ConsoleAnswer {
        guard let tenantId = request.path.first, request.path.count == 1 else { return await list(request) }
        return await tenant(tenantId, request)
    }

    func post(_ request: ConsoleRequest) async -> ConsoleAnswer {
        switch request.path.count {
        case 1 where request.path[0] == "create": return await create(request)
        case 2 where request.path[1] == "update": return await update(request.path[0], request)
        case 2 where request.path[1] == "delete": return await delete(request.path[0], request)
        default: return .notFound
        }
    }

    static func page(_ tenantId: String) -> String { "/console/tenants/" + PercentEncoding.encode(tenantId) }

    // MARK: Actions

    private func create(_ request: ConsoleRequest) async -> ConsoleAnswer {
        let name = (request.field("displayName") ?? "").trimmingSpaces
        let wanted = (request.field("tenantId") ?? "").trimmingSpaces
        var params: [(String, JSONValue)] = [("displayName", .string(name))]
        if !wanted.isEmpty { params.append(("tenantId", .string(wanted))) }
        let result = await engine.call("createTenant", params)
        let created = (try? result.get())?["tenant"]?["tenantId"]?.stringValue
        request.audit.record(
            "createTenant", target: created ?? (wanted.isEmpty ? name : wanted), outcome: ConsoleAudit.outcome(result))
        switch result {
        case let .failure(failure): return .redirect(path: "/console/tenants", notice: "Refused: " + failure.message)
        case .success:
            let tenantId = created ?? wanted
            return .redirect(path: Self.page(tenantId), notice: "Tenant \(tenantId) created.")
        }
    }

    private func update(_ tenantId: String, _ request: ConsoleRequest) async -> ConsoleAnswer {
        let result: Result<JSONValue, ConsoleFailure>
        switch ConsoleTenantSettings.params(request) {
        case let .success(settings):
            result = await engine.call("updateTenant", [("tenantId", .string(tenantId))] + settings)
        case let .failure(failure): result = .failure(failure)
        }
        request.audit.record("updateTenant", target: tenantId, outcome: ConsoleAudit.outcome(result))
        if case let .failure(failure) = result {
            return .redirect(path: Self.page(tenantId), notice: "Refused: " + failure.message)
        }
        return .redirect(path: Self.page(tenantId), notice: "Settings saved.")
    }

    private func delete(_ tenantId: String, _ request: ConsoleRequest) async -> ConsoleAnswer {
        guard request.field("confirm") == tenantId else {
            request.audit.record("deleteTenant", target: tenantId, outcome: "unconfirmed")
            return .redirect(path: Self.page(tenantId), notice: "Not deleted: type the tenant ID to confirm.")
        }
        let result = await engine.call("deleteTenant", [("tenantId", .string(tenantId))])
        request.audit.record("deleteTenant", target: tenantId, outcome: ConsoleAudit.outcome(result))
        if case let .failure(failure) = result {
            return .redirect(path: Self.page(tenantId), notice: "Refused: " + failure.message)
        }
        return .redirect(path: "/console/tenants", notice: "Tenant \(tenantId) deleted.")
    }

    // MARK: Pages

    private func list(_ request: ConsoleRequest) async -> ConsoleAnswer {
        var params: [(String, JSONValue)] = [("maxResults", .int(50))]
        if let token = request.query("pageToken") { params.append(("pageToken", .string(token))) }
        var body = ""
        switch await engine.call("listTenants", params) {
        case let .success(found):
            let rows = (found["tenants"]?.arrayValue ?? []).map { tenant -> [String] in
                let tenantId = tenant["tenantId"]?.stringValue ?? ""
                return [
                    HTML.link(Self.page(tenantId), tenantId), HTML.escape(ConsoleFormat.text(tenant["displayName"])),
                    HTML.escape(ConsoleTenantSettings.factorsText(tenant["secondFactors"])),
                    HTML.escape(ConsoleTenantSettings.regionText(tenant["smsRegionPolicy"])),
                    HTML.escape(ConsoleFormat.text(tenant["createdAt"])),
                ]
            }
            body += HTML.table(
                "Tenants", headers: ["Tenant ID", "Display name", "Second factors", "SMS regions", "Created"],
                rows: rows)
            if let next = found["pageToken"]?.stringValue {
                body +=
                    "<p>" + HTML.link("/console/tenants?pageToken=" + PercentEncoding.encode(next), "Next page")
                    + "</p>"
            }
        case let .failure(failure): body += failure.html
        }
        body += "<h2>Create a tenant</h2>"
        body += HTML.form(
            "/console/tenants/create", csrf: request.session.csrf,
            inputs: HTML.input(
                "displayName", label: "Display name (4–20 letters, digits and hyphens, starting with a letter)",
                required: true)
                + HTML.input("tenantId", label: "Tenant ID (empty: made from the display name)"),
            button: "Create")
        return .page(title: "Tenants", body: body)
    }

    private func tenant(_ tenantId: String, _ request: ConsoleRequest) async -> ConsoleAnswer {
        let found = await engine.call("getTenant", [("tenantId", .string(tenantId))])
        guard case let .success(result) = found, let tenant = result["tenant"] else {
            if case let .failure(failure) = found { return .page(title: "Tenant", body: failure.html, status: 404) }
            return .page(title: "Tenant", body: "", status: 404)
        }
        let facts: [(String, String)] = [
            ("Tenant ID", HTML.escape(tenantId)),
            ("Display name", HTML.escape(ConsoleFormat.text(tenant["displayName"]))),
            ("Users", HTML.link("/console/users?tenant=" + PercentEncoding.encode(tenantId), "The tenant's users")),
            ("Created", HTML.escape(ConsoleFormat.text(tenant["createdAt"]))),
            ("Updated", HTML.escape(ConsoleFormat.text(tenant["updatedAt"]))),
            ("Test numbers", HTML.escape(String(tenant["testPhoneNumbers"]?.objectPairs.count ?? 0))),
            ("SMS regions", HTML.escape(ConsoleTenantSettings.regionText(tenant["smsRegionPolicy"]))),
            ("Second factors", HTML.escape(ConsoleTenantSettings.factorsText(tenant["secondFactors"]))),
            ("SMS app name", HTML.escape(ConsoleTenantSettings.appNameText(tenant["smsAppName"]))),
            ("Pumping defense", ConsoleTenantSettings.engineOr(tenant["pumping"])),
            ("Passkeys", ConsoleTenantSettings.engineOr(tenant["passkeys"])),
        ]
        var body = "<dl>" + facts.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" }.joined() + "</dl>"
        body += "<h2>Settings</h2>"
        body += ConsoleTenantSettings.form(tenant, action: Self.page(tenantId) + "/update", csrf: request.session.csrf)
        body += "<h2>Delete</h2><p>The engine refuses while the tenant has users: delete them first.</p>"
        body += HTML.form(
            Self.page(tenantId) + "/delete", csrf: request.session.csrf,
            inputs: HTML.input("confirm", label: "Type the tenant ID \(tenantId) to delete it", required: true),
            button: "Delete \(tenantId)", danger: true)
        return .page(title: "Tenant \(tenantId)", body: body)
    }
}
