import Glibc
import XCTest
@testable import PhoneAuthCore

final class TokenTests: XCTestCase {
    let phone = "+16505551234"

    private func engine(
        _ dir: String = temporaryDirectory(), clock: Clock = SystemClock(),
        _ adjust: (inout EngineConfig) -> Void = { _ in }
    ) throws -> Engine {
        try Engine(
            config: makeConfig(dir) {
                $0.testPhoneNumbers = [phone: "123456"]; adjust(&$0)
            }, clock: clock)
    }

    private func signIn(_ engine: Engine) throws -> SignInResult {
        let id = try engine.verification.verifyPhoneNumber(phone).verificationId
        return try engine.signIn.signIn(with: PhoneCredential(verificationId: id, verificationCode: "123456"))
    }

    func testIdTokensCarryFirebaseClaimsForEveryAlgorithm() throws {
        for algorithm in EngineConfig.SigningAlgorithm.allCases {
            let engine = try engine {
                $0.signingAlgorithm = algorithm; $0.projectId = "demo-project"
            }
            let result = try signIn(engine)
            let jwt = try XCTUnwrap(JWT.decode(result.idToken))
            XCTAssertEqual(jwt.header["alg"], .string(algorithm.rawValue))
            let claims = try engine.sessions.verifyIdToken(result.idToken, checkRevoked: true)
            XCTAssertEqual(claims["aud"], .string("demo-project"))
            XCTAssertEqual(claims["iss"], .string("https://phoneauth.local/demo-project"))
            XCTAssertEqual(claims["sub"], .string(result.user.uid))
            XCTAssertEqual(claims["user_id"], .string(result.user.uid))
            XCTAssertEqual(claims["phone_number"], .string(phone))
            XCTAssertEqual(claims["firebase"]?["sign_in_provider"], .string("phone"))
            XCTAssertEqual(claims["firebase"]?["identities"]?["phone"], .array([.string(phone)]))
            XCTAssertEqual((claims["exp"]?.intValue ?? 0) - (claims["iat"]?.intValue ?? 0), 3600)
            let kid = try XCTUnwrap(jwt.header["kid"]?.stringValue)
            guard case let .array(keys)? = engine.keyService.jwks["keys"] else { return XCTFail("no keys") }
            XCTAssertTrue(keys.contains { $0["kid"] == .string(kid) })
        }
    }

    func testTamperedForeignAndExpiredTokensAreRejected() throws {
        let clock = ManualClock()
        let engine = try engine(clock: clock)
        let token = try signIn(engine).idToken
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(#"{"sub":"someone-else","aud":"phoneauth"}"#.utf8))
        assertError(.invalidIdToken, reason: "badSignature") {
            _ = try engine.sessions.verifyIdToken(parts.joined(separator: "."), checkRevoked: false)
        }
        assertError(.invalidIdToken, reason: "malformed") {
            _ = try engine.sessions.verifyIdToken("not.a.jwt", checkRevoked: false)
        }
        let other = try self.engine()
        assertError(.invalidIdToken, reason: "unknownKey") {
            _ = try other.sessions.verifyIdToken(token, checkRevoked: false)
        }
        clock.advance(seconds: 3601)
        assertError(.userTokenExpired) { _ = try engine.sessions.verifyIdToken(token, checkRevoked: false) }
    }

    func testRefreshRotatesAndReuseEndsTheSession() throws {
        // Strict: no reuse interval (RefreshReuseTests covers the default one).
        let engine = try engine { $0.refreshReuseIntervalSeconds = 0 }
        let first = try signIn(engine)
        let second = try engine.sessions.refreshIdToken(first.refreshToken)
        XCTAssertNotEqual(second.refreshToken, first.refreshToken)
        assertError(.invalidUserToken, reason: "reused") { _ = try engine.sessions.refreshIdToken(first.refreshToken) }
        assertError(.invalidUserToken, reason: "reused") { _ = try engine.sessions.refreshIdToken(second.refreshToken) }
        assertError(.invalidUserToken, reason: "unknown") { _ = try engine.sessions.refreshIdToken("nonsense") }
        // A forged secret for the current generation is unknown, and does not end the session.
        let third = try engine.sessions.refreshIdToken(try signIn(engine).refreshToken)
        var parts = third.refreshToken.split(separator: ".").map(String.init)
        parts[3] = Base64URL.encode(SecureBytes.random(count: 32))
        assertError(.invalidUserToken, reason: "unknown") {
            _ = try engine.sessions.refreshIdToken(parts.joined(separator: "."))
        }
        XCTAssertNoThrow(try engine.sessions.refreshIdToken(third.refreshToken))
    }

    func testSignOutEndsOnlyThatSession() throws {
        let engine = try engine()
        let a = try signIn(engine)
        let b = try signIn(engine)
        try engine.sessions.signOut(refreshToken: a.refreshToken)
        assertError(.invalidUserToken, reason: "signedOut") { _ = try engine.sessions.refreshIdToken(a.refreshToken) }
        XCTAssertNoThrow(try engine.sessions.refreshIdToken(b.refreshToken))
    }

    func testRevocationAndDisablingAreSeenByCheckRevoked() throws {
        let clock = ManualClock()
        let engine = try engine(clock: clock)
        let result = try signIn(engine)
        clock.advance(seconds: 5)
        try engine.sessions.revokeRefreshTokens(uid: result.user.uid)
        XCTAssertNoThrow(try engine.sessions.verifyIdToken(result.idToken, checkRevoked: false))
        assertError(.idTokenRevoked) { _ = try engine.sessions.verifyIdToken(result.idToken, checkRevoked: true) }
        assertError(.invalidUserToken, reason: "revoked") {
            _ = try engine.sessions.refreshIdToken(result.refreshToken)
        }
        clock.advance(seconds: 5)
        let again = try signIn(engine)
        XCTAssertNoThrow(try engine.sessions.verifyIdToken(again.idToken, checkRevoked: true))
        _ = try engine.accounts.updateUser(uid: again.user.uid, disabled: true, displayName: nil)
        assertError(.userDisabled) { _ = try engine.sessions.verifyIdToken(again.idToken, checkRevoked: true) }
        assertError(.userDisabled) { _ = try engine.sessions.refreshIdToken(again.refreshToken) }
        assertError(.userDisabled) { _ = try signIn(engine) }
    }

    func testKeysSurviveRestartAndNeedTheirMasterKey() throws {
        let dir = temporaryDirectory()
        var engine = try engine(dir)
        let token = try signIn(engine).idToken
        engine.close()
        engine = try self.engine(dir)
        XCTAssertNoThrow(try engine.sessions.verifyIdToken(token, checkRevoked: false))
        engine.close()
        assertError(.invalidConfiguration) {
            _ = try self.engine(dir) { $0.masterKey = Array(repeating: 9, count: 32) }
        }
    }

    func testGeneratedKeyFileIsPrivate() throws {
        try XCTSkipIf(testingPostgres, "PostgreSQL has no key file: StorageTests checks that it needs a master key")
        let dir = temporaryDirectory()
        var config = makeConfig(dir)
        config.masterKey = nil
        _ = try Engine(config: config)
        var info = stat()
        XCTAssertEqual(stat(dir + "/auth.db.key", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        XCTAssertNoThrow(try Engine(config: config))
    }
}
