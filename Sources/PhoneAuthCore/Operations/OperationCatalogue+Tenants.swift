/// Tenants (pools of users with their own settings).
extension OperationCatalogue {
    static let tenants: [Operation] = [
        Operation(
            "createTenant", parameters: TenantSettings.keys.union(["tenantId", "displayName"]),
            nullable: TenantSettings.keys
        ) { engine, caller, p in
            .object([("tenant", try engine.tenants.create(p).json)])
        },
        Operation("getTenant", parameters: ["tenantId"]) { engine, caller, p in
            .object([("tenant", try engine.tenants.tenant(try TenantID(p.string("tenantId"))).json)])
        },
        Operation(
            "updateTenant", parameters: TenantSettings.keys.union(["tenantId", "displayName"]),
            nullable: TenantSettings.keys
        ) { engine, caller, p in
            .object([("tenant", try engine.tenants.update(try TenantID(p.string("tenantId")), p).json)])
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
