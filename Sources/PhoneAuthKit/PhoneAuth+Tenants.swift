import PhoneAuthCore

/// Tenants, typed: the createTenant … listTenants methods (docs/API.md, "Tenants") for Swift hosts.
/// Admin methods: the engine's view and a tenant's view (``tenant(_:)``) manage the same tenants.
extension PhoneAuth {
    /// Creates a tenant with `changes` (``TenantChanges/displayName`` required) and returns it.
    /// Without `id`, one is made from the display name (`acme-x7k2p`); an `id` another tenant
    /// has is refused with ``PhoneAuthError/Code/invalidArgument``, `details.reason` `tenantExists`.
    public func createTenant(id: String? = nil, _ changes: TenantChanges) throws(PhoneAuthError) -> Tenant {
        Tenant(try run("createTenant") { try $0.tenants.create(id: try TenantID(id), try changes.core) })
    }

    /// The tenant `id`; ``PhoneAuthError/Code/tenantNotFound`` if there is none.
    public func getTenant(_ id: String) throws(PhoneAuthError) -> Tenant {
        Tenant(try run("getTenant") { try $0.tenants.tenant(try TenantID(id)) })
    }

    /// Changes tenant `id`'s display name or settings as `changes` says and returns it; what
    /// `changes` leaves nil is kept.
    public func updateTenant(_ id: String, _ changes: TenantChanges) throws(PhoneAuthError) -> Tenant {
        Tenant(try run("updateTenant") { try $0.tenants.update(try TenantID(id), try changes.core) })
    }

    /// Deletes tenant `id`, refused with ``PhoneAuthError/Code/tenantNotEmpty`` while it has users
    /// (delete them first, through ``tenant(_:)``).
    public func deleteTenant(_ id: String) throws(PhoneAuthError) {
        try run("deleteTenant") { try $0.tenants.delete(try TenantID(id)) }
    }

    /// Up to `maxResults` (1 to 1000) tenants in ID order, from where `pageToken` (a previous
    /// page's `nextPageToken`) says; `nextPageToken` is nil on the last page.
    public func listTenants(
        maxResults: Int = 100, pageToken: String? = nil
    ) throws(PhoneAuthError) -> (tenants: [Tenant], nextPageToken: String?) {
        let page = try run("listTenants") { try $0.tenants.list(maxResults: maxResults, pageToken: pageToken) }
        return (page.tenants.map(Tenant.init), page.nextPageToken)
    }
}
