import XCTest
@testable import PhoneAuthCore

final class UserManagementTests: XCTestCase {
    private func makeUsers(_ engine: Engine, _ uids: [String]) throws {
        for uid in uids {
            _ = try engine.signIn.signIn(withCustomToken: try engine.signIn.createCustomToken(uid: uid, claims: nil))
        }
    }

    func testListUsersPagesInUidOrder() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        try makeUsers(engine, ["c", "a", "e", "b", "d"])
        var seen: [String] = []
        var token: String?
        repeat {
            let page = try engine.accounts.listUsers(maxResults: 2, pageToken: token)
            XCTAssertLessThanOrEqual(page.users.count, 2)
            seen += page.users.map(\.uid)
            token = page.nextPageToken
        } while token != nil
        XCTAssertEqual(seen, ["a", "b", "c", "d", "e"])
        assertError(.invalidArgument) { _ = try engine.accounts.listUsers(maxResults: 2, pageToken: "!!") }
    }

    func testCustomClaimsReachTheNextIdToken() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        let session = try engine.signIn.signIn(
            withCustomToken: try engine.signIn.createCustomToken(uid: "u", claims: .object([("role", .string("user"))]))
        )
        try engine.accounts.setCustomUserClaims(
            uid: "u", claims: .object([("role", .string("admin")), ("tester", .bool(true))]))
        let refreshed = try engine.sessions.refreshIdToken(session.refreshToken)
        let claims = try engine.sessions.verifyIdToken(refreshed.idToken, checkRevoked: false)
        XCTAssertEqual(claims["role"], .string("admin"), "the user's claims win over the custom token's")
        XCTAssertEqual(claims["tester"], .bool(true))
        XCTAssertNil(
            try engine.sessions.verifyIdToken(session.idToken, checkRevoked: false)["tester"],
            "earlier tokens are unchanged")
        try engine.accounts.setCustomUserClaims(uid: "u", claims: nil)
        XCTAssertNil(try engine.accounts.user(uid: "u").customClaims)
        assertError(.invalidArgument) {
            try engine.accounts.setCustomUserClaims(uid: "u", claims: .object([("exp", .int(1))]))
        }
        assertError(.userNotFound) { try engine.accounts.setCustomUserClaims(uid: "nobody", claims: nil) }
    }

    func testPhoneNumberCanBeSetOnceAndRemoved() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        try makeUsers(engine, ["a", "b"])
        XCTAssertEqual(
            try engine.accounts.updateUser(uid: "a", phoneNumber: .some("+1 650-555-3434")).phoneNumber, "+16505553434")
        XCTAssertEqual(try engine.accounts.user(phoneNumber: "+16505553434").uid, "a")
        assertError(.phoneNumberAlreadyExists) {
            _ = try engine.accounts.updateUser(uid: "b", phoneNumber: .some("+16505553434"))
        }
        assertError(.invalidPhoneNumber) { _ = try engine.accounts.updateUser(uid: "b", phoneNumber: .some("12")) }
        XCTAssertNil(try engine.accounts.updateUser(uid: "a", phoneNumber: .some(nil)).phoneNumber)
        XCTAssertEqual(
            try engine.accounts.updateUser(uid: "b", phoneNumber: .some("+16505553434")).phoneNumber, "+16505553434")
    }

    func testSessionsEndedByDisablingStayEndedAfterReEnabling() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        let session = try engine.signIn.signIn(
            withCustomToken: try engine.signIn.createCustomToken(uid: "u", claims: nil))
        _ = try engine.accounts.updateUser(uid: "u", disabled: true)
        assertError(.userDisabled) { _ = try engine.sessions.refreshIdToken(session.refreshToken) }
        _ = try engine.accounts.updateUser(uid: "u", disabled: false)
        assertError(.invalidUserToken, reason: "userDisabled") {
            _ = try engine.sessions.refreshIdToken(session.refreshToken)
        }
        XCTAssertNoThrow(
            try engine.signIn.signIn(withCustomToken: try engine.signIn.createCustomToken(uid: "u", claims: nil)))
    }

    func testCreatedUserIsFoundAndSignedInToByItsNumber() throws {
        let engine = try Engine(
            config: makeConfig(temporaryDirectory()) { $0.testPhoneNumbers = ["+16505551234": "123456"] })
        let made = try engine.accounts.createUser(uid: "made", displayName: "Ada", phoneNumber: "+1 650-555-1234")
        XCTAssertEqual(made.phoneNumber, "+16505551234")
        XCTAssertNil(made.lastSignInAt)
        XCTAssertEqual(try engine.accounts.user(phoneNumber: "+16505551234").uid, "made")
        assertError(.uidAlreadyExists) { _ = try engine.accounts.createUser(uid: "made") }
        assertError(.phoneNumberAlreadyExists) {
            _ = try engine.accounts.createUser(uid: "other", phoneNumber: "+16505551234")
        }
        assertError(.userNotFound) { _ = try engine.accounts.user(uid: "other") }  // the refusal wrote nothing
        XCTAssertEqual(try engine.accounts.createUser(uid: nil).uid.count, 28)
        assertError(.invalidArgument) { _ = try engine.accounts.createUser(uid: String(repeating: "u", count: 129)) }
        XCTAssertTrue(try engine.accounts.createUser(uid: "off", disabled: true).disabled)
        let started = try engine.verification.verifyPhoneNumber("+16505551234")
        let signedIn = try engine.signIn.signIn(
            with: try VerificationService.credential(verificationId: started.verificationId, verificationCode: "123456")
        )
        XCTAssertEqual(signedIn.user.uid, "made")
        XCTAssertFalse(signedIn.isNewUser)
    }
}
