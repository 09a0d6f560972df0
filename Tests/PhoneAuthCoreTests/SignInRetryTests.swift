import XCTest
@testable import PhoneAuthCore

/// A sign-in whose answer was lost (its commit reached the server, the reply did not) is retried
/// with the same credential: within `signInRetrySeconds` it gets the session it opened, and
/// nothing else about a used code changes. (The lost answer itself is made on PostgreSQL by
/// bindings/python/tests/test_postgres_failover.py; here the retry is simply presented again.)
final class SignInRetryTests: XCTestCase {
    private let phone = "+16505553434", code = "123456"

    private func makeEngine(_ clock: ManualClock, _ adjust: (inout EngineConfig) -> Void = { _ in }) throws -> Engine {
        try Engine(
            config: makeConfig(temporaryDirectory()) {
                $0.testPhoneNumbers = [self.phone: self.code]; adjust(&$0)
            }, clock: clock)
    }

    private func credential(_ engine: Engine, code: String? = nil) throws -> PhoneCredential {
        PhoneCredential(
            verificationId: try engine.verification.verifyPhoneNumber(phone).verificationId,
            verificationCode: code ?? self.code)
    }

    func testARetryWithinTheIntervalGetsTheSameSessionAndLaterTheCodeIsUsed() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let credential = try credential(engine)
        let first = try engine.signIn.signIn(with: credential)
        clock.advance(seconds: 30)
        let retried = try engine.signIn.signIn(with: credential)
        XCTAssertEqual(retried.user.uid, first.user.uid)
        XCTAssertTrue(retried.isNewUser, "the result the first call produced: it created the user")
        XCTAssertEqual(retried.refreshToken, first.refreshToken, "the same session")
        XCTAssertEqual(try engine.accounts.user(uid: first.user.uid).phoneNumber, phone)
        // The session works, once: its token rotates as any.
        let refreshed = try engine.sessions.refreshIdToken(retried.refreshToken)
        XCTAssertEqual(refreshed.user.uid, first.user.uid)
        clock.advance(seconds: 1)
        assertError(.sessionExpired, reason: "alreadyUsed") { _ = try engine.signIn.signIn(with: credential) }
    }

    /// A refreshed session shows that its tokens arrived: presenting the code again is no retry.
    func testARetryAfterTheSessionWasRefreshedIsRefused() throws {
        for reuse: Int64 in [10, 0] {
            let engine = try makeEngine(ManualClock()) { $0.refreshReuseIntervalSeconds = reuse }
            let credential = try credential(engine)
            let first = try engine.signIn.signIn(with: credential)
            _ = try engine.sessions.refreshIdToken(first.refreshToken)
            assertError(.sessionExpired, reason: "alreadyUsed") { _ = try engine.signIn.signIn(with: credential) }
        }
    }

    func testARetryIsRefusedOnceTheSessionEndedOrTheUserChanged() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        /// A fresh sign-in (past the resend window), `change` made to it, then its code again.
        func retried(
            _ code: PhoneAuthError.Code, reason: String? = "alreadyUsed", after change: (SignInResult) throws -> Void
        ) throws -> SignInResult {
            clock.advance(seconds: 61)
            let credential = try self.credential(engine)
            let signedIn = try engine.signIn.signIn(with: credential)
            try change(signedIn)
            assertError(code, reason: reason) { _ = try engine.signIn.signIn(with: credential) }
            return signedIn
        }
        _ = try retried(.sessionExpired) { try engine.sessions.signOut(refreshToken: $0.refreshToken) }
        _ = try retried(.sessionExpired) { try engine.sessions.revokeRefreshTokens(uid: $0.user.uid) }
        let disabled = try retried(.userDisabled, reason: nil) {
            _ = try engine.accounts.updateUser(uid: $0.user.uid, disabled: true)
        }
        _ = try engine.accounts.updateUser(uid: disabled.user.uid, disabled: false)
        _ = try retried(.sessionExpired) {
            _ = try engine.accounts.updateUser(uid: $0.user.uid, phoneNumber: .some("+16505550000"))
        }
        let deleted = try retried(.sessionExpired) { try engine.accounts.deleteUser(uid: $0.user.uid) }
        XCTAssertThrowsError(try engine.accounts.user(uid: deleted.user.uid), "never a second user")
    }

    /// Guessing against a used code within the interval costs attempts like guessing against an
    /// active one; once they are spent, even the right code is only "used".
    func testWrongCodesAgainstAUsedOneAreCountedAndEndItsRetries() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock) { $0.maxAttempts = 3 }
        let credential = try credential(engine)
        _ = try engine.signIn.signIn(with: credential)
        let wrong = PhoneCredential(verificationId: credential.verificationId, verificationCode: "000000")
        for _ in 0..<3 {
            assertError(.sessionExpired, reason: "alreadyUsed") { _ = try engine.signIn.signIn(with: wrong) }
        }
        assertError(.sessionExpired, reason: "alreadyUsed") { _ = try engine.signIn.signIn(with: credential) }
        XCTAssertEqual(try engine.verification.verificationStatus(credential.verificationId).state, .used)
    }

    func testWithRetriesOffAUsedCodeIsRefusedAtOnce() throws {
        let engine = try makeEngine(ManualClock()) { $0.signInRetrySeconds = 0 }
        let credential = try credential(engine)
        _ = try engine.signIn.signIn(with: credential)
        assertError(.sessionExpired, reason: "alreadyUsed") { _ = try engine.signIn.signIn(with: credential) }
    }

    /// The challenge the first call opened, while it is open; once revoked, used or expired, nothing.
    func testARetryOfAUserWithSecondFactorsGetsTheSameChallenge() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let session = try engine.signIn.signIn(with: try credential(engine))
        let started = try engine.multiFactor.startTotpEnrollment(
            idToken: session.idToken, accountName: nil, issuer: nil)
        let secret = try XCTUnwrap(base32Decode(started.secretKey))
        _ = try engine.multiFactor.finishTotpEnrollment(
            idToken: session.idToken, sessionInfo: started.sessionInfo,
            code: Totp.code(secret: secret, step: Totp.step(at: clock.now())), displayName: "app")
        func challenge(_ credential: PhoneCredential) throws -> String? {
            do {
                _ = try engine.signIn.signIn(with: credential)
                XCTFail("signed in without the second factor")
            } catch let error as PhoneAuthError where error.code == .secondFactorRequired {
                return try XCTUnwrap(error.detail("session")?.stringValue)
            }
            return nil
        }
        clock.advance(seconds: 61)
        var credential = try credential(engine)
        let first = try challenge(credential)
        XCTAssertEqual(try challenge(credential), first, "the same challenge")
        clock.advance(seconds: 31)
        assertError(.sessionExpired, reason: "alreadyUsed") { _ = try engine.signIn.signIn(with: credential) }

        clock.advance(seconds: 61)
        credential = try self.credential(engine)
        _ = try challenge(credential)
        try engine.sessions.revokeRefreshTokens(uid: session.user.uid)
        assertError(.sessionExpired, reason: "alreadyUsed") { _ = try engine.signIn.signIn(with: credential) }
    }

    func testTheIntervalIsConfigurableAndBounded() throws {
        XCTAssertEqual(try EngineConfig.read(try JSONCodec.parse(#"{"database": "x.db"}"#)).signInRetrySeconds, 30)
        let config = try EngineConfig.read(try JSONCodec.parse(#"{"database": "x.db", "signInRetrySeconds": 0}"#))
        XCTAssertEqual(config.signInRetrySeconds, 0)
        assertError(.invalidConfiguration) {
            _ = try EngineConfig.read(try JSONCodec.parse(#"{"database": "x.db", "signInRetrySeconds": 301}"#))
        }
    }
}
