import XCTest

@testable import PhoneAuthCore

/// Who a call is for and from: built once per call by the JSON door (and PhoneAuthKit), and the
/// one place that decides which pool a call works in.
final class CallerTests: XCTestCase {
    func testThePoolIsTheTenantNamedElseTheDefault() throws {
        XCTAssertEqual(Caller().pool, .defaultPool)
        XCTAssertEqual(Caller(tenant: try TenantID("acme-1")).pool, try TenantID("acme-1"))
        XCTAssertEqual(Caller(tenant: .defaultPool).pool, .defaultPool)
    }

    /// A token of any pool when none is named (securetoken's refresh names none), else only the
    /// named tenant's — the default pool's too, when "" names it.
    func testATokenMustBeOfTheTenantNamed() throws {
        let acme = try TenantID("acme-1")
        XCTAssertTrue(Caller().tokenMayBeOf(acme))
        XCTAssertTrue(Caller().tokenMayBeOf(.defaultPool))
        XCTAssertTrue(Caller(tenant: acme).tokenMayBeOf(acme))
        XCTAssertFalse(Caller(tenant: acme).tokenMayBeOf(.defaultPool))
        XCTAssertFalse(Caller(tenant: .defaultPool).tokenMayBeOf(acme))
    }

    /// The catalogue reads the caller from the parameters the operation takes, and only those:
    /// `tenantId` only where the operation works in a pool (a tenant method's names the tenant it
    /// manages).
    func testTheCatalogueReadsTheCallerOnce() throws {
        let verify = try XCTUnwrap(Engine.operation(named: "verifyPhoneNumber"))
        let caller = try verify.caller(
            ObjectReader(
                .object([
                    ("tenantId", .string("acme-1")), ("clientIp", .string("192.0.2.7")),
                    ("userAgent", .string("test/1")), ("languageCode", .string("fr-CA")),
                ])))
        XCTAssertEqual(caller.tenant, try TenantID("acme-1"))
        XCTAssertEqual(caller.address?.text, "192.0.2.7")
        XCTAssertEqual(caller.address?.userAgent, "test/1")
        XCTAssertEqual(caller.language?.text, "fr-CA")
        XCTAssertNil(try verify.caller(ObjectReader(.object([]))).tenant)

        let getTenant = try XCTUnwrap(Engine.operation(named: "getTenant"))
        XCTAssertNil(try getTenant.caller(ObjectReader(.object([("tenantId", .string("acme-1"))]))).tenant)

        // Refused as the input types refuse it, before the operation runs.
        XCTAssertThrowsError(try verify.caller(ObjectReader(.object([("clientIp", .string("not an address"))])))) {
            XCTAssertEqual(($0 as? PhoneAuthError)?.detail("field"), .string("clientIp"))
        }
        XCTAssertThrowsError(try verify.caller(ObjectReader(.object([("userAgent", .string("test/1"))])))) {
            XCTAssertEqual(($0 as? PhoneAuthError)?.detail("field"), .string("userAgent"))
        }
    }
}
