/// The users an operator's search finds (the JSON method `searchUsers`), a page at a time in uid
/// order, each statement through an index the tenant leads.
extension SQLStore {
    /// By number: the index (tenant, phone) holds at most one.
    static var userSearchByNumberQuery: String {
        userColumns + " WHERE tenant = ? AND phone = ? AND uid > ? ORDER BY uid LIMIT ?"
    }

    /// By uid (the primary key) or by the start of the display name (the index users_tenant_name,
    /// tenant and lower(display_name), of the users that have a name: the statement says so, for
    /// the planners to take the partial index): lower() is ASCII's alone in both stores (SQLite's without
    /// ICU, PostgreSQL's on a "C" column), so one text serves both. Sorted outside the union: an
    /// ORDER BY on it would have SQLite walk the tenant's users in uid order instead of the range.
    /// `bounded`: the range has an end.
    static func userSearchQuery(bounded: Bool) -> String {
        "SELECT * FROM (" + userColumns + " WHERE tenant = ? AND uid = ? AND uid > ? UNION " + userColumns
            + " WHERE tenant = ? AND display_name IS NOT NULL AND lower(display_name) >= ?"
            + (bounded ? " AND lower(display_name) < ?" : "")
            + " AND uid > ?) AS found ORDER BY uid LIMIT ?"
    }

    /// The statement and values of a search's page.
    static func userSearch(
        _ search: UserSearch, tenant: TenantID, afterUid: String?, limit: Int
    ) -> (sql: String, values: [SQLValue]) {
        let after = SQLValue.text(afterUid ?? ""), tenant = SQLValue.text(tenant.text)
        switch search {
        case let .phoneNumber(phone):
            return (userSearchByNumberQuery, [tenant, .text(phone), after, .int(Int64(limit))])
        case let .uidOrName(uid, nameFrom, nameBefore):
            return (
                userSearchQuery(bounded: nameBefore != nil),
                [tenant, .text(uid), after, tenant, .text(nameFrom)] + (nameBefore.map { [.text($0)] } ?? [])
                    + [after, .int(Int64(limit))]
            )
        }
    }

    package func searchUsers(
        _ search: UserSearch, in pool: Pool, afterUid: String?, limit: Int
    ) throws -> [UserRecord] {
        let (sql, values) = Self.userSearch(search, tenant: pool.tenant, afterUid: afterUid, limit: limit)
        return try read { db in
            var users: [UserRecord] = []
            try db.rows(sql, values) { users.append(Self.userRecord($0)) }
            return try users.compactMap { try withCredentials($0, in: db) }
        }
    }
}
