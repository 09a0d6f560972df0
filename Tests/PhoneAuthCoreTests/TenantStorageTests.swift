import XCTest

@testable import PhoneAuthCore

/// The store's per-tenant lookups go through an index (the tenant leads it), on SQLite and, when
/// the suite runs against it, PostgreSQL: the engine's own statements, explained.
final class TenantStorageTests: XCTestCase {
    typealias Store = SQLStore<SQLiteConnection>  // the statements are the same text for both dialects

    func testPerTenantLookupsUseAnIndex() throws {
        try QueryPlans.ofNewDatabase { plans in
            let postgres = plans.postgres
            // `stops`: the statement takes the first row the index gives (LIMIT 1), so it may search
            // by the tenant alone; the others must never walk the tenant's users to find one.
            let statements: [(String, String, [SQLValue], stops: Bool)] = [
                (
                    "a number's holder", Store.numberHolderQuery, [.text("+1"), .text("t"), .text("t"), .text("+1")],
                    false
                ),
                ("a user by number", Store.userByNumberQuery, [.text("t"), .text("+1")], false),
                ("a page of users", Store.userPageQuery, [.text("t"), .text(""), .int(10)], false),
                ("the deletion's probe", Store.tenantUsersProbe, [.text("t")], true),
            ]
            for (what, sql, values, stops) in statements {
                let plan = try plans.plan(sql, values)
                let text = plan.joined(separator: " | ")
                if postgres {
                    XCTAssertFalse(text.contains("Seq Scan"), "\(what): \(text)")
                } else {
                    // SQLite scans only the one constant row a LEFT JOIN starts from.
                    let scans = plan.filter { $0.hasPrefix("SCAN") && $0 != "SCAN one" && $0 != "SCAN CONSTANT ROW" }
                    XCTAssertEqual(scans, [], "\(what): \(text)")
                    if !stops { XCTAssertFalse(text.contains("(tenant=?)"), "\(what): \(text)") }
                }
            }
        }
    }
}
