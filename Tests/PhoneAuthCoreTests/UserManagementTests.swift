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

    func testCreatedUserIsFoundAndSignedInToByItsNumber() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()) { $0.testPhoneNumbers = ["+16505551234": "123456"] })
        let made = try engine.createUser(uid: "made", displayName: "Ada", phoneNumber: "+1 650-555-1234")
        XCTAssertEqual(made.phoneNumber, "+16505551234")
        XCTAssertNil(made.lastSignInAt)
        XCTAssertEqual(try engine.user(phoneNumber: "+16505551234").uid, "made")
        assertError(.uidAlreadyExists) { _ = try engine.createUser(uid: "made") }
        assertError(.phoneNumberAlreadyExists) { _ = try engine.createUser(uid: "other", phoneNumber: "+16505551234") }
        assertError(.userNotFound) { _ = try engine.user(uid: "other") }  // the refusal wrote nothing
        XCTAssertEqual(try engine.createUser(uid: nil).uid.count, 28)
        assertError(.invalidArgument) { _ = try engine.createUser(uid: String(repeating: "u", count: 129)) }
        XCTAssertTrue(try engine.createUser(uid: "off", disabled: true).disabled)
        let started = try engine.verifyPhoneNumber("+16505551234")
        let signedIn = try engine.signIn(with: try Engine.credential(verificationId: started.verificationId, verificationCode: "123456"))
        XCTAssertEqual(signedIn.user.uid, "made")
        XCTAssertFalse(signedIn.isNewUser)
    }
}
