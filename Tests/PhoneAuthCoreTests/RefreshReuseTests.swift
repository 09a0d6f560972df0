import XCTest
@testable import PhoneAuthCore

/// Refresh-token rotation with a reuse interval: requests that race each other, or a retry after
/// a lost response, get the same new token; anything older, or later, is still theft.
final class RefreshReuseTests: XCTestCase {
    private let phone = "+16505551234"

    private func engine(_ clock: Clock, _ adjust: (inout EngineConfig) -> Void = { _ in }) throws -> Engine {
        try Engine(
            config: makeConfig(temporaryDirectory()) {
                $0.testPhoneNumbers = [self.phone: "123456"]; adjust(&$0)
            }, clock: clock)
    }

    private func signIn(_ engine: Engine) throws -> SignInResult {
        let id = try engine.verification.verifyPhoneNumber(phone).verificationId
        return try engine.signIn.signIn(with: PhoneCredential(verificationId: id, verificationCode: "123456"))
    }

    func testEightConcurrentRefreshesAllSucceedWithOneToken() throws {
        let engine = try engine(SystemClock())
        let first = try signIn(engine)
        let results = Lock()
        var tokens: [String] = [], failures: [String] = []
        DispatchQueueLike.concurrentPerform(iterations: 8) { _ in
            do {
                let refreshed = try engine.sessions.refreshIdToken(first.refreshToken)
                XCTAssertNoThrow(try engine.sessions.verifyIdToken(refreshed.idToken, checkRevoked: true))
                results.withLock { tokens.append(refreshed.refreshToken) }
            } catch {
                results.withLock { failures.append("\(error)") }
            }
        }
        XCTAssertEqual(failures, [])
        XCTAssertEqual(tokens.count, 8)
        XCTAssertEqual(Set(tokens).count, 1, "every caller gets the same next token")
        // The session lives on: the shared token refreshes.
        XCTAssertNoThrow(try engine.sessions.refreshIdToken(tokens[0]))
    }

    func testARetryAfterALostResponseGetsTheSameToken() throws {
        let clock = ManualClock()
        let engine = try engine(clock)
        let first = try signIn(engine)
        let lost = try engine.sessions.refreshIdToken(first.refreshToken)
        clock.advance(seconds: 9)
        let retried = try engine.sessions.refreshIdToken(first.refreshToken)
        XCTAssertEqual(retried.refreshToken, lost.refreshToken)
        XCTAssertNotEqual(retried.idToken, "")
        XCTAssertNoThrow(try engine.sessions.refreshIdToken(retried.refreshToken))
    }

    func testTheSameTokenAfterTheIntervalIsTheft() throws {
        let clock = ManualClock()
        let engine = try engine(clock)
        let first = try signIn(engine)
        let second = try engine.sessions.refreshIdToken(first.refreshToken)
        clock.advance(seconds: 11)
        assertError(.invalidUserToken, reason: "reused") { _ = try engine.sessions.refreshIdToken(first.refreshToken) }
        assertError(.invalidUserToken, reason: "reused") { _ = try engine.sessions.refreshIdToken(second.refreshToken) }
    }

    func testAGrandparentWithinTheIntervalIsTheft() throws {
        let clock = ManualClock()
        let engine = try engine(clock)
        let first = try signIn(engine)
        let second = try engine.sessions.refreshIdToken(first.refreshToken)
        let third = try engine.sessions.refreshIdToken(second.refreshToken)
        clock.advance(seconds: 1)
        assertError(.invalidUserToken, reason: "reused") { _ = try engine.sessions.refreshIdToken(first.refreshToken) }
        assertError(.invalidUserToken, reason: "reused") { _ = try engine.sessions.refreshIdToken(third.refreshToken) }
    }

    func testAForgedPreviousSecretIsNotAcceptedAsARetry() throws {
        let clock = ManualClock()
        let engine = try engine(clock)
        let first = try signIn(engine)
        _ = try engine.sessions.refreshIdToken(first.refreshToken)
        var parts = first.refreshToken.split(separator: ".").map(String.init)
        parts[3] = String(repeating: "A", count: 43)
        XCTAssertThrowsError(try engine.sessions.refreshIdToken(parts.joined(separator: ".")))
    }

    func testZeroMeansStrictAndTheSecretIsNotKept() throws {
        let dir = temporaryDirectory()
        let engine = try Engine(
            config: makeConfig(dir) {
                $0.testPhoneNumbers = [self.phone: "123456"]; $0.refreshReuseIntervalSeconds = 0
            },
            clock: ManualClock())
        let first = try signIn(engine)
        let second = try engine.sessions.refreshIdToken(first.refreshToken)
        assertError(.invalidUserToken, reason: "reused") { _ = try engine.sessions.refreshIdToken(first.refreshToken) }
        assertError(.invalidUserToken, reason: "reused") { _ = try engine.sessions.refreshIdToken(second.refreshToken) }
        let connection = try Database(makeConfig(dir)).connect()
        defer { connection.close() }
        XCTAssertEqual(
            try connection.row("SELECT count(*) FROM sessions WHERE sealed_secret IS NOT NULL", [], { $0.int(0) }), 0)
    }

    func testTheKeptSecretIsSealed() throws {
        let dir = temporaryDirectory()
        let engine = try Engine(
            config: makeConfig(dir) { $0.testPhoneNumbers = [self.phone: "123456"] }, clock: ManualClock())
        let refreshed = try engine.sessions.refreshIdToken(try signIn(engine).refreshToken)
        engine.close()
        let secret = Array(try XCTUnwrap(refreshed.refreshToken.split(separator: ".").last).utf8)
        XCTAssertFalse(contains(try storedBytes(dir), secret), "a refresh secret is in the database in clear")
    }
}
