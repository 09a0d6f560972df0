import XCTest
@testable import PhoneAuthCore

final class UserManagementTests: XCTestCase {
    private func makeUsers(_ engine: Engine, _ uids: [String]) throws {
        for uid in uids { _ = try engine.signIn(withCustomToken: try engine.createCustomToken(uid: uid, claims: nil)) }
    }

    func testListUsersPagesInUidOrder() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        try makeUsers(engine, ["c", "a", "e", "b", "d"])
        var seen: [String] = []
        var token: String?
        repeat {
            let page = try engine.listUsers(maxResults: 2, pageToken: token)
            XCTAssertLessThanOrEqual(page.users.count, 2)
            seen += page.users.map(\.uid)
            token = page.nextPageToken
        } while token != nil
        XCTAssertEqual(seen, ["a", "b", "c", "d", "e"])
        assertError(.invalidArgument) { _ = try engine.listUsers(maxResults: 2, pageToken: "!!") }
    }

    func testCustomClaimsReachTheNextIdToken() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        let session = try engine.signIn(withCustomToken: try engine.createCustomToken(uid: "u", claims: .object([("role", .string("user"))])))
        try engine.setCustomUserClaims(uid: "u", claims: .object([("role", .string("admin")), ("tester", .bool(true))]))
        let refreshed = try engine.refreshIdToken(session.refreshToken)
        let claims = try engine.verifyIdToken(refreshed.idToken, checkRevoked: false)
        XCTAssertEqual(claims["role"], .string("admin"), "the user's claims win over the custom token's")
        XCTAssertEqual(claims["tester"], .bool(true))
        XCTAssertNil(try engine.verifyIdToken(session.idToken, checkRevoked: false)["tester"], "earlier tokens are unchanged")
        try engine.setCustomUserClaims(uid: "u", claims: nil)
        XCTAssertNil(try engine.user(uid: "u").customClaims)
        assertError(.invalidArgument) { try engine.setCustomUserClaims(uid: "u", claims: .object([("exp", .int(1))])) }
        assertError(.userNotFound) { try engine.setCustomUserClaims(uid: "nobody", claims: nil) }
    }

    func testPhoneNumberCanBeSetOnceAndRemoved() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        try makeUsers(engine, ["a", "b"])
        XCTAssertEqual(try engine.updateUser(uid: "a", phoneNumber: .some("+1 650-555-3434")).phoneNumber, "+16505553434")
        XCTAssertEqual(try engine.user(phoneNumber: "+16505553434").uid, "a")
        assertError(.phoneNumberAlreadyExists) { _ = try engine.updateUser(uid: "b", phoneNumber: .some("+16505553434")) }
        assertError(.invalidPhoneNumber) { _ = try engine.updateUser(uid: "b", phoneNumber: .some("12")) }
        XCTAssertNil(try engine.updateUser(uid: "a", phoneNumber: .some(nil)).phoneNumber)
        XCTAssertEqual(try engine.updateUser(uid: "b", phoneNumber: .some("+16505553434")).phoneNumber, "+16505553434")
    }

    func testSessionsEndedByDisablingStayEndedAfterReEnabling() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        let session = try engine.signIn(withCustomToken: try engine.createCustomToken(uid: "u", claims: nil))
        _ = try engine.updateUser(uid: "u", disabled: true)
        assertError(.userDisabled) { _ = try engine.refreshIdToken(session.refreshToken) }
        _ = try engine.updateUser(uid: "u", disabled: false)
        assertError(.invalidUserToken, reason: "userDisabled") { _ = try engine.refreshIdToken(session.refreshToken) }
        XCTAssertNoThrow(try engine.signIn(withCustomToken: try engine.createCustomToken(uid: "u", claims: nil)))
    }
}
