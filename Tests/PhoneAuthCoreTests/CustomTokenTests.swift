import XCTest
@testable import PhoneAuthCore

final class CustomTokenTests: XCTestCase {
    func testCustomTokenSignsInAndCarriesClaimsThroughRefresh() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        let token = try engine.signIn.createCustomToken(
            uid: "host-user-42", claims: .object([("role", .string("tester"))]))
        let first = try engine.signIn.signIn(withCustomToken: token)
        XCTAssertTrue(first.isNewUser)
        XCTAssertEqual(first.user.uid, "host-user-42")
        XCTAssertNil(first.user.phoneNumber)
        XCTAssertEqual(first.providerId, "custom")
        let claims = try engine.sessions.verifyIdToken(first.idToken, checkRevoked: true)
        XCTAssertEqual(claims["role"], .string("tester"))
        XCTAssertEqual(claims["firebase"]?["sign_in_provider"], .string("custom"))
        let refreshed = try engine.sessions.refreshIdToken(first.refreshToken)
        XCTAssertEqual(
            try engine.sessions.verifyIdToken(refreshed.idToken, checkRevoked: false)["role"], .string("tester"))
        XCTAssertFalse(try engine.signIn.signIn(withCustomToken: token).isNewUser)
    }

    func testForeignExpiredAndMisusedTokensAreRefused() throws {
        let clock = ManualClock()
        let engine = try Engine(
            config: makeConfig(temporaryDirectory()) { $0.testPhoneNumbers = ["+16505551234": "123456"] }, clock: clock)
        let other = try Engine(config: makeConfig(temporaryDirectory()))
        assertError(.invalidCustomToken, reason: "unknownKey") {
            _ = try engine.signIn.signIn(withCustomToken: try other.signIn.createCustomToken(uid: "u", claims: nil))
        }
        assertError(.invalidCustomToken, reason: "malformed") { _ = try engine.signIn.signIn(withCustomToken: "x.y.z") }
        // An ID token is signed by the same key but is not a custom token, nor the reverse.
        let id = try engine.verification.verifyPhoneNumber("+16505551234").verificationId
        let idToken = try engine.signIn.signIn(with: PhoneCredential(verificationId: id, verificationCode: "123456"))
            .idToken
        assertError(.customTokenMismatch) { _ = try engine.signIn.signIn(withCustomToken: idToken) }
        let custom = try engine.signIn.createCustomToken(uid: "u", claims: nil)
        assertError(.invalidIdToken, reason: "wrongAudience") {
            _ = try engine.sessions.verifyIdToken(custom, checkRevoked: false)
        }
        clock.advance(seconds: 3601)
        assertError(.invalidCustomToken, reason: "expired") { _ = try engine.signIn.signIn(withCustomToken: custom) }
    }

    func testClaimsAreChecked() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        assertError(.invalidArgument) {
            _ = try engine.signIn.createCustomToken(uid: "u", claims: .object([("sub", .string("x"))]))
        }
        assertError(.invalidArgument) { _ = try engine.signIn.createCustomToken(uid: "u", claims: .string("admin")) }
        assertError(.invalidArgument) {
            _ = try engine.signIn.createCustomToken(
                uid: "u", claims: .object([("big", .string(String(repeating: "a", count: 1000)))]))
        }
        assertError(.invalidArgument) {
            _ = try engine.signIn.createCustomToken(uid: String(repeating: "u", count: 129), claims: nil)
        }
        let disabled = try engine.signIn.signIn(
            withCustomToken: try engine.signIn.createCustomToken(uid: "d", claims: nil)
        ).user
        _ = try engine.accounts.updateUser(uid: disabled.uid, disabled: true, displayName: nil)
        assertError(.userDisabled) {
            _ = try engine.signIn.signIn(withCustomToken: try engine.signIn.createCustomToken(uid: "d", claims: nil))
        }
    }
}
