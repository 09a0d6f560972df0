/// Tenants: managing them (the admin methods) and the pool each operation runs in.
///
/// A tenant's settings are read through a short cache, so a sign-in in a tenant reads no more
/// of the store than one in the default pool; a change made by this engine takes effect at once,
/// one made by another engine sharing the store within `cacheMilliseconds`.
package final class TenantService: @unchecked Sendable {  // `cached` is under `lock`
    static let cacheMilliseconds: Int64 = 5000

    private let config: EngineConfig
    private let clock: Clock
    private let store: any TenantStore
    /// The default pool's settings, fixed by the configuration.
    let defaultPool: Pool
    private let lock = Lock()
    private var cached: [TenantID: (pool: Pool, settings: TenantSettings, until: Int64)] = [:]
    /// Bumped by every change this engine makes: a read begun before it is not cached after it.
    private var generation = 0

    init(config: EngineConfig, smsText: SMSText, voiceText: VoiceText, clock: Clock, store: any TenantStore) {
        self.config = config
        self.clock = clock
        self.store = store
        defaultPool = Pool(
            tenant: .defaultPool, testPhoneNumbers: config.testPhoneNumbers, regionPolicy: nil, secondFactors: nil,
            pumping: nil, passkeys: config.passkeys, smsText: smsText, voiceText: voiceText)
    }

    /// The pool of a user: its tenant's.
    func pool(of user: UserRecord) throws -> Pool { try pool(for: Caller(tenant: user.tenant)) }

    /// The pool the caller works in (``Caller/pool``); tenantNotFound for a tenant that does not
    /// exist.
    package func pool(for caller: Caller) throws -> Pool {
        let tenant = caller.pool
        if tenant.isDefault { return defaultPool }
        let now = clock.now().milliseconds
        let (hit, readFrom) = lock.withLock { (cached[tenant], generation) }
        if let hit, hit.until > now { return hit.pool }
        guard let found = try store.tenant(id: tenant) else { throw Self.notFound(tenant) }
        // Settings as they were keep their pool (its texts are costly to prepare).
        let pool = try hit.flatMap { $0.settings == found.settings ? $0.pool : nil } ?? makePool(found)
        lock.withLock {
            if generation == readFrom { cached[tenant] = (pool, found.settings, now + Self.cacheMilliseconds) }
        }
        return pool
    }

    private func makePool(_ tenant: Tenant) throws -> Pool {
        var texts = config
        if let name = tenant.settings.smsAppName { texts.smsAppName = name }
        return Pool(
            tenant: tenant.id, testPhoneNumbers: tenant.settings.testPhoneNumbers,
            regionPolicy: tenant.settings.regionPolicy, secondFactors: tenant.settings.secondFactors,
            pumping: tenant.settings.pumping, passkeys: tenant.settings.passkeys ?? config.passkeys,
            smsText: try SMSText(texts), voiceText: try VoiceText(texts))
    }

    /// Drops a tenant's cached settings, changed or deleted by this engine.
    private func forget(_ tenant: TenantID) {
        lock.withLock {
            cached[tenant] = nil
            generation += 1
        }
    }

    // MARK: Admin methods

    /// Creates a tenant with `changes` (a display name required); `id` `.defaultPool`: one is made
    /// from the display name.
    package func create(id given: TenantID, _ changes: TenantChanges) throws -> Tenant {
        let changes = try changes.checked(creating: true)
        let displayName = changes.displayName ?? ""
        var settings = TenantSettings()
        changes.apply(to: &settings)
        let now = clock.now()
        // A generated ID that is taken (1 in 60 million) is drawn again; a given one is refused.
        for _ in 0..<3 {
            let id = given.isDefault ? TenantID.generate(displayName: displayName) : given
            let tenant = Tenant(id: id, displayName: displayName, settings: settings, createdAt: now, updatedAt: now)
            if try store.createTenant(tenant) { return tenant }
            guard given.isDefault else {
                throw PhoneAuthError(
                    .invalidArgument, "A tenant with this ID exists already.",
                    details: [("field", .string("tenantId")), ("reason", .string("tenantExists"))])
            }
        }
        throw PhoneAuthError(.internalError, "No free tenant ID was found; try again.")
    }

    package func tenant(_ id: TenantID) throws -> Tenant {
        guard !id.isDefault else { throw Self.missingId() }
        guard let tenant = try store.tenant(id: id) else { throw Self.notFound(id) }
        return tenant
    }

    /// Applies `changes` (a setting `.some(nil)` is cleared).
    package func update(_ id: TenantID, _ changes: TenantChanges) throws -> Tenant {
        guard !id.isDefault else { throw Self.missingId() }
        let updated = try store.updateTenant(id: id, now: clock.now()) { tenant throws(PhoneAuthError) in
            // Checked once the tenant is found: a tenant that does not exist is tenantNotFound.
            let changes = try changes.checked(creating: false)
            if let displayName = changes.displayName { tenant.displayName = displayName }
            changes.apply(to: &tenant.settings)
        }
        forget(id)
        guard let updated else { throw Self.notFound(id) }
        return updated
    }

    package func delete(_ id: TenantID) throws {
        guard !id.isDefault else { throw Self.missingId() }
        switch try store.deleteTenant(id: id) {
        case .deleted: forget(id)
        case .notFound: throw Self.notFound(id)
        case .hasUsers:
            throw PhoneAuthError(
                .tenantNotEmpty, "The tenant still has users; delete them first (listUsers with its tenantId).",
                details: [("tenantId", .string(id.text))])
        }
    }

    package func list(maxResults: Int, pageToken: String?) throws -> (tenants: [Tenant], nextPageToken: String?) {
        try PageSize.check(maxResults)
        if let pageToken, !TenantID.isWellFormed(pageToken) {
            throw PhoneAuthError(
                .invalidArgument, "The page token is not one listTenants gave.",
                details: [("field", .string("pageToken"))])
        }
        let page = try store.listTenants(afterId: pageToken, limit: maxResults + 1)
        let shown = Array(page.prefix(maxResults))
        return (shown, page.count > maxResults ? shown.last?.id.text : nil)
    }

    static func notFound(_ id: TenantID) -> PhoneAuthError {
        PhoneAuthError(.tenantNotFound, "There is no \(id).", details: [("tenantId", .string(id.text))])
    }

    static func missingId() -> PhoneAuthError {
        PhoneAuthError(
            .invalidArgument, "The field 'tenantId' is required.", details: [("field", .string("tenantId"))])
    }
}
