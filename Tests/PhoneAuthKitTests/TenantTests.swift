import Foundation
import PhoneAuthKit
import XCTest

/// A tenant's view (`auth.tenant(_:)`): its typed methods and its JSON calls work in the tenant.
final class TenantTests: KitTestCase {
    func testATenantsViewWorksInItsTenantOnly() async throws {
        let auth = try open()
        let made = await auth.call(
            "createTenant",
            paramsJSON: #"{"tenantId": "acme", "displayName": "Acme", "testPhoneNumbers": {"+16505551234": "222222"}}"#)
        XCTAssertEqual(made.status, 0, made.json)
        let acme = try auth.tenant("acme")
        XCTAssertEqual(acme.tenantID, "acme")
        XCTAssertNil(try auth.tenant("").tenantID, "the default pool's view names no tenant")
        XCTAssertNil(auth.tenantID)

        // The tenant's own test code, a user of the tenant, a token that says so.
        let verification = try await acme.verifyPhoneNumber(testNumber)
        let session = try await acme.signIn(
            with: try PhoneAuth.credential(verificationID: verification.verificationID, verificationCode: "222222"))
        XCTAssertEqual(session.user.tenantID, "acme")
        let token = try await acme.verifyIDToken(session.idToken)
        XCTAssertEqual(token.tenantID, "acme")
        let anyPool = try await auth.verifyIDToken(session.idToken)
        XCTAssertEqual(anyPool.uid, session.user.uid, "the engine's own view accepts every pool's token")
        await assertThrows(.invalidIdToken) { _ = try await auth.tenant("").verifyIDToken(session.idToken) }
        await assertThrows(.userNotFound) { _ = try await auth.user(uid: session.user.uid) }
        let user = try await acme.user(uid: session.user.uid)
        XCTAssertEqual(user.phoneNumber, testNumber)

        // A JSON call of the view names the tenant for methods in a pool, and only for those.
        let listed = await acme.call("listUsers", paramsJSON: "{}")
        XCTAssertTrue(listed.json.contains(session.user.uid), listed.json)
        let other = await auth.call("listUsers", paramsJSON: "{}")
        XCTAssertFalse(other.json.contains(session.user.uid), other.json)
        let deleted = await acme.call("deleteTenant", paramsJSON: "{}")
        XCTAssertEqual(deleted.status, PhoneAuthError.Code.invalidArgument.status, "no tenant is named: none deleted")
        let kept = await auth.call("getTenant", paramsJSON: #"{"tenantId": "acme"}"#)
        XCTAssertEqual(kept.status, 0, kept.json)
        await assertThrows(.tenantNotFound) { _ = try await auth.tenant("nope").user(uid: "x") }
    }
}
