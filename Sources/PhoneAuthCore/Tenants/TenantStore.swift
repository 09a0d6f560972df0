/// Tenants: their rows, and deleting one only while it has no users.
/// Part of `Store`; SQLStore implements it in this folder's SQL (see Storage/Store.swift).
package protocol TenantStore: AnyObject, Sendable {
    /// Adds `tenant`; false if its ID is taken.
    func createTenant(_ tenant: Tenant) throws -> Bool
    func tenant(id: TenantID) throws -> Tenant?
    /// Changes the tenant with `change` in one transaction; nil if there is none.
    func updateTenant(
        id: TenantID, now: Timestamp, _ change: (inout Tenant) throws(PhoneAuthError) -> Void
    ) throws -> Tenant?
    /// Removes the tenant, refusing while it has users (what they own is never removed by
    /// accident: delete them first). Its verifications stay until they expire and are purged:
    /// they count toward the per-number SMS limits, which hold across tenants.
    func deleteTenant(id: TenantID) throws -> TenantDeletion
    /// Up to `limit` tenants in ID order, starting after `afterId`.
    func listTenants(afterId: String?, limit: Int) throws -> [Tenant]
}

/// What deleting a tenant did.
package enum TenantDeletion: Sendable, Equatable {
    case deleted
    case notFound
    case hasUsers
}
