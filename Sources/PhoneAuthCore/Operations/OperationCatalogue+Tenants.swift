/// Tenants (pools of users with their own settings).
extension OperationCatalogue {
    static let tenants: [Operation] = [
        Operation(
            "createTenant", parameters: TenantSettings.keys.union(["tenantId", "displayName"]),
            nullable: TenantSettings.keys
        ) { engine, _, p in
            // Read in the order the refusals have always come: the name, the ID, the settings.
            let name = try TenantChanges.displayName(in: p, creating: true)
            let id = try TenantID(p.string("tenantId"))
            var changes = try TenantChanges(settingsOf: p)
            changes.displayName = name
            return .object([("tenant", try engine.tenants.create(id: id, changes).json)])
        },
        Operation("getTenant", parameters: ["tenantId"]) { engine, caller, p in
            .object([("tenant", try engine.tenants.tenant(try TenantID(p.string("tenantId"))).json)])
        },
        Operation(
            "updateTenant", parameters: TenantSettings.keys.union(["tenantId", "displayName"]),
            nullable: TenantSettings.keys
        ) { engine, _, p in
            let id = try TenantID(p.string("tenantId"))
            guard !id.isDefault else { throw TenantService.missingId() }
            let name = try TenantChanges.displayName(in: p, creating: false)
            // A tenant that does not exist is refused before its settings are read, as always.
            _ = try engine.tenants.tenant(id)
            var changes = try TenantChanges(settingsOf: p)
            changes.displayName = name
            return .object([("tenant", try engine.tenants.update(id, changes).json)])
        },
        Operation("deleteTenant", parameters: ["tenantId"]) { engine, caller, p in
            try engine.tenants.delete(try TenantID(p.string("tenantId")))
            return .object([])
        },
        Operation("listTenants", parameters: ["maxResults", "pageToken"]) { engine, caller, p in
            let page = try engine.tenants.list(
                maxResults: Int(try p.int("maxResults", in: 1...1000) ?? 100), pageToken: try p.string("pageToken"))
            var result = JSONObjectBuilder()
            result.set("tenants", .array(page.tenants.map(\.json)))
            result.set("pageToken", page.nextPageToken.map { .string($0) })
            return result.value
        },
    ]
}
