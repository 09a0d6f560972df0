import XCTest
@testable import PhoneAuthCore

final class KeyRotationTests: XCTestCase {
    private func kids(_ engine: Engine) -> [String] {
        guard case let .array(keys)? = engine.keyService.jwks["keys"] else { return [] }
        return keys.compactMap { $0["kid"]?.stringValue }.sorted()
    }

    private func kid(of token: String) -> String? { JWT.decode(token)?.header["kid"]?.stringValue }

    private func session(_ engine: Engine, _ uid: String) throws -> SignInResult {
        try engine.signIn.signIn(withCustomToken: try engine.signIn.createCustomToken(uid: uid, claims: nil))
    }

    func testOldKeysVerifyUntilTheirTokensExpireThenLeaveTheJwks() throws {
        let clock = ManualClock()
        let engine = try Engine(config: makeConfig(temporaryDirectory()) { $0.idTokenTtlSeconds = 600 }, clock: clock)
        let before = try session(engine, "u")
        let oldKid = try XCTUnwrap(kid(of: before.idToken))
        XCTAssertEqual(kids(engine), [oldKid])
        clock.advance(seconds: 100)
        _ = engine.call("rotateSigningKey", params: .object([])).result
        let after = try session(engine, "u")
        let newKid = try XCTUnwrap(kid(of: after.idToken))
        XCTAssertNotEqual(newKid, oldKid, "later tokens are signed by the new key")
        XCTAssertEqual(kids(engine), [oldKid, newKid].sorted(), "the old key stays published")
        XCTAssertNoThrow(try engine.sessions.verifyIdToken(before.idToken, checkRevoked: false))
        XCTAssertEqual(try session(engine, "v").refreshToken.isEmpty, false)
        clock.advance(seconds: 601)  // the old key's tokens have all expired
        XCTAssertEqual(kids(engine), [newKid], "the old key leaves the JWKS")
        XCTAssertThrowsError(try engine.sessions.verifyIdToken(before.idToken, checkRevoked: false))
        XCTAssertNoThrow(
            try engine.sessions.verifyIdToken(
                try engine.sessions.refreshIdToken(after.refreshToken).idToken, checkRevoked: false))
    }

    /// Keys made within one millisecond still list in the order they were made, the active one
    /// last (a key made in the same millisecond as the one before sorted by its random kid).
    func testKeysMadeInOneMillisecondListInTheOrderTheyWereMade() throws {
        let clock = ManualClock()  // never moves: every key is made at the same instant
        let engine = try Engine(config: makeConfig(temporaryDirectory()), clock: clock)
        var made = [try XCTUnwrap(engine.keyService.signingKeys().first?.kid)]
        for _ in 0..<4 {
            _ = engine.call("rotateSigningKey", params: .object([])).result
            let keys = engine.keyService.signingKeys()
            made.append(try XCTUnwrap(keys.first { $0.active }?.kid))
            XCTAssertEqual(keys.map(\.kid), made)
            XCTAssertEqual(keys.map(\.active), Array(repeating: false, count: made.count - 1) + [true])
        }
    }

    func testRetiringAKeyStopsItsTokensAtOnce() throws {
        let clock = ManualClock()
        let engine = try Engine(config: makeConfig(temporaryDirectory()), clock: clock)
        let token = try session(engine, "u").idToken
        let leaked = try XCTUnwrap(kid(of: token))
        let (status, result) = engine.call("retireSigningKey", params: .object([("kid", .string(leaked))]))
        XCTAssertEqual(status, 0, "\(result)")
        XCTAssertFalse(kids(engine).contains(leaked))
        XCTAssertEqual(kids(engine).count, 1, "a new active key replaced the retired one")
        XCTAssertThrowsError(try engine.sessions.verifyIdToken(token, checkRevoked: false))
        XCTAssertNotEqual(kid(of: try session(engine, "u").idToken), leaked)
        XCTAssertNotEqual(
            engine.call("retireSigningKey", params: .object([("kid", .string(leaked))])).status, 0, "retired once")
    }

    func testAnotherEnginesRotationReachesThisOneWithinTheReloadInterval() throws {
        let dir = temporaryDirectory(), clock = ManualClock()
        let first = try Engine(config: makeConfig(dir), clock: clock)
        let second = try Engine(config: makeConfig(dir), clock: clock)
        let third = try Engine(config: makeConfig(dir), clock: clock)
        let oldKid = kid(of: try session(third, "u").idToken)
        try first.keys.rotate(retireAfterSeconds: 3600)
        let newToken = try session(first, "u").idToken
        XCTAssertNoThrow(
            try second.sessions.verifyIdToken(newToken, checkRevoked: false),
            "an unknown kid makes an engine read the keys")
        XCTAssertEqual(kid(of: try session(second, "w").idToken), kid(of: newToken))
        XCTAssertEqual(
            kid(of: try session(third, "w").idToken), oldKid, "within the interval an engine signs as before")
        clock.advance(seconds: 11)
        XCTAssertEqual(kid(of: try session(third, "w").idToken), kid(of: newToken))
    }

    func testAutomaticRotationMakesExactlyOneKeyForManyEngines() throws {
        let dir = temporaryDirectory(), clock = ManualClock()
        let engines = try (0..<4).map { _ in
            try Engine(config: makeConfig(dir) { $0.signingKeyRotationDays = 30 }, clock: clock)
        }
        let firstKid = kid(of: try session(engines[0], "u").idToken)
        clock.advance(seconds: 29 * 86_400)
        XCTAssertEqual(kid(of: try session(engines[1], "u").idToken), firstKid, "not due yet")
        clock.advance(seconds: 2 * 86_400)
        let kidsSigned = try Set(engines.map { kid(of: try session($0, "u").idToken) })
        XCTAssertEqual(kidsSigned.count, 1, "every engine signs with the one new key")
        XCTAssertNotEqual(kidsSigned.first, firstKid)
        XCTAssertEqual(kids(engines[0]).count, 2, "one rotation: the new key and the old one until its tokens expire")
    }

    func testBadCalls() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        XCTAssertEqual(
            engine.call("rotateSigningKey", params: .object([("algorithm", .string("HS256"))])).status,
            PhoneAuthError.Code.invalidArgument.status)
        XCTAssertEqual(
            engine.call("retireSigningKey", params: .object([("kid", .string("nope"))])).status,
            PhoneAuthError.Code.invalidArgument.status)
        XCTAssertEqual(
            engine.call("retireSigningKey", params: .object([])).status, PhoneAuthError.Code.invalidArgument.status)
        let rotated = engine.call("rotateSigningKey", params: .object([("algorithm", .string("EdDSA"))]))
        XCTAssertEqual(rotated.status, 0)
        XCTAssertEqual(
            kid(of: try session(engine, "u").idToken).flatMap { k in
                engine.keys.publishedKeys.first { $0.kid == k }?.algorithm.rawValue
            }, "EdDSA")
    }
}
