/// Tenants in the store: one row each, their settings as JSON text.
extension SQLStore {
    private static var tenantColumns: String {
        "SELECT id, display_name, settings, created_at, updated_at FROM tenants"
    }

    private static func tenant(_ row: Connection.Row) throws -> Tenant {
        Tenant(
            id: TenantID(unchecked: row.text(0)), displayName: row.text(1),
            settings: try TenantSettings.stored(row.text(2)), createdAt: Timestamp(milliseconds: row.int(3)),
            updatedAt: Timestamp(milliseconds: row.int(4)))
    }

    /// Whether a tenant has a user: one probe of the index users_tenant (tenant, uid).
    static var tenantUsersProbe: String { "SELECT 1 FROM users WHERE tenant = ? LIMIT 1" }

    package func createTenant(_ tenant: Tenant) throws -> Bool {
        try write { db in
            guard try self.tenant(id: tenant.id, in: db) == nil else { return false }
            try db.run(
                "INSERT INTO tenants (id, display_name, settings, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(tenant.id.text), .text(tenant.displayName), .text(JSONCodec.serialize(tenant.settings.json)),
                    .int(tenant.createdAt.milliseconds), .int(tenant.updatedAt.milliseconds),
                ])
            return true
        }
    }

    func tenant(id: TenantID, in db: Connection) throws -> Tenant? {
        try db.row(Self.tenantColumns + " WHERE id = ?", [.text(id.text)]) { try Self.tenant($0) }
    }

    package func tenant(id: TenantID) throws -> Tenant? { try read { try tenant(id: id, in: $0) } }

    package func updateTenant(
        id: TenantID, now: Timestamp, _ change: (inout Tenant) throws(PhoneAuthError) -> Void
    ) throws -> Tenant? {
        try write { db in
            guard var tenant = try tenant(id: id, in: db) else { return nil }
            try change(&tenant)
            tenant.updatedAt = now
            try db.run(
                "UPDATE tenants SET display_name = ?, settings = ?, updated_at = ? WHERE id = ?",
                [
                    .text(tenant.displayName), .text(JSONCodec.serialize(tenant.settings.json)),
                    .int(now.milliseconds), .text(id.text),
                ])
            return tenant
        }
    }

    package func deleteTenant(id: TenantID) throws -> TenantDeletion {
        try write { db in
            guard try tenant(id: id, in: db) != nil else { return .notFound }
            if try db.row(Self.tenantUsersProbe, [.text(id.text)], { _ in true }) != nil {
                return .hasUsers
            }
            // Its codes and proofs end with it (a tenant made again with its ID must not take
            // them); the rows stay, for the per-number limits, until they are purged.
            try db.run(
                "UPDATE verifications SET state = ?, sealed_body = NULL WHERE tenant = ? AND state = ?",
                [.text(VerificationState.replaced), .text(id.text), .text(VerificationState.active)])
            try db.run("DELETE FROM tenants WHERE id = ?", [.text(id.text)])
            return .deleted
        }
    }

    package func listTenants(afterId: String?, limit: Int) throws -> [Tenant] {
        try read { db in
            var tenants: [Tenant] = []
            try db.rows(
                Self.tenantColumns + " WHERE id > ? ORDER BY id LIMIT ?", [.text(afterId ?? ""), .int(Int64(limit))]
            ) { tenants.append(try Self.tenant($0)) }
            return tenants
        }
    }

    /// Whether `tenant` exists, read in the transaction that writes a row of it (a user, a
    /// verification), so a tenant deleted while a call was on its way (its settings still in an
    /// engine's cache) gets no row: a deletion either sees the row or the row sees no tenant.
    func tenantExists(_ tenant: TenantID, in db: Connection) throws -> Bool {
        if tenant.isDefault { return true }
        return try db.row("SELECT 1 FROM tenants WHERE id = ?", [.text(tenant.text)], { _ in true }) ?? false
    }
}
