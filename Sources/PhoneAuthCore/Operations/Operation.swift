/// One operation of the engine as its doors see it (docs/API.md, "Methods").
package struct Operation: Sendable {
    /// Who may call an operation through phoneauthd.
    package enum Access: String, Sendable {
        /// An app, for its end user: open, or with an API key when the server has some.
        case client
        /// Only with an admin token: it manages users or reveals state.
        case admin
        /// Never over HTTP: only through the library and the `phoneauth` command.
        case library
    }

    package let name: String
    /// An operation that does not say is admin: a new one is closed until it is opened on purpose.
    package let access: Access
    /// Whether the server sets `clientIp` (the end user's address, which per-IP limits count)
    /// from the connection, replacing any the caller sent.
    package let setsClientIp: Bool
    /// The JSON parameters it takes; any other is refused before it runs.
    package let parameters: Set<String>
    /// The parameters that may be given as null, where null means something of its own (clear a
    /// name, remove claims): any other parameter given as null is refused before it runs, as a
    /// wrong type is (leaving it out is how a caller says "none").
    package let nullable: Set<String>
    /// Whether it works in a user pool its `tenantId` names (docs/API.md, "Tenants"); the tenant
    /// methods take a `tenantId` too, but there it names the tenant they manage.
    package let scopedByTenant: Bool
    let run: @Sendable (Engine, Caller, ObjectReader) throws -> JSONValue

    init(
        _ name: String, access: Access = .admin, setsClientIp: Bool = false, scopedByTenant: Bool = false,
        parameters: Set<String>, nullable: Set<String> = [],
        run: @escaping @Sendable (Engine, Caller, ObjectReader) throws -> JSONValue
    ) {
        self.name = name
        self.access = access
        self.setsClientIp = setsClientIp
        self.scopedByTenant = scopedByTenant
        self.parameters = scopedByTenant ? parameters.union(["tenantId"]) : parameters
        self.nullable = nullable
        self.run = run
    }

    /// Who a call is for and from, read once from its parameters: the pool `tenantId` names
    /// where the operation works in one (absent: none named), `clientIp` with `userAgent`, and
    /// `languageCode`, where it takes them.
    func caller(_ p: ObjectReader) throws -> Caller {
        Caller(
            tenant: scopedByTenant && p.value("tenantId") != nil ? try TenantID(p.string("tenantId")) : nil,
            address: parameters.contains("clientIp")
                ? try ClientAddress(p.string("clientIp"), userAgent: p.string("userAgent")) : nil,
            language: parameters.contains("languageCode") ? try LanguageTag(p.string("languageCode")) : nil)
    }

    /// The operation as `listMethods` describes it.
    var description: JSONValue {
        .object([
            ("name", .string(name)), ("access", .string(access.rawValue)), ("setsClientIp", .bool(setsClientIp)),
            ("scopedByTenant", .bool(scopedByTenant)),
            ("parameters", .array(parameters.sorted().map { .string($0) })),
            ("nullable", .array(nullable.sorted().map { .string($0) })),
        ])
    }
}
