import XCTest
@testable import PhoneAuthCore

/// The calls besides signInWithCredential that spend a proof (link, number change,
/// re-authentication, a phone factor's enrolment, a challenge met by SMS or TOTP) follow its
/// retry rule: the same proof again within `signInRetrySeconds` gets the session the first call
/// opened, never a second session or factor; later, or for another user, or once the change no
/// longer holds, it is refused as before. (The lost answer itself is made on PostgreSQL by
/// bindings/python/tests/test_postgres_failover.py; here the retry is simply presented again.)
final class AccountChangeRetryTests: XCTestCase {
    private let first = "+16505551234", second = "+16505559999", third = "+16505558888"
    private let code = "123456"

    private func makeEngine(_ clock: ManualClock, _ adjust: (inout EngineConfig) -> Void = { _ in }) throws -> Engine {
        try Engine(
            config: makeConfig(temporaryDirectory()) {
                $0.testPhoneNumbers = [self.first: self.code, self.second: self.code, self.third: self.code]
                $0.resendAfterSeconds = 0
                adjust(&$0)
            }, clock: clock)
    }

    private func credential(_ engine: Engine, _ phone: String) throws -> PhoneCredential {
        PhoneCredential(
            verificationId: try engine.verification.verifyPhoneNumber(phone).verificationId, verificationCode: code)
    }

    private func signIn(_ engine: Engine, _ phone: String) throws -> SignInResult {
        try engine.signIn.signIn(with: try credential(engine, phone))
    }

    private func sessionCount(_ engine: Engine, _ uid: String) throws -> Int64 {
        try count(engine, "SELECT count(*) FROM sessions WHERE uid = ?", [.text(uid)])
    }

    /// A count read straight from the store, whichever driver the suite runs on.
    private func count(_ engine: Engine, _ sql: String, _ args: [SQLValue]) throws -> Int64 {
        if let store = engine.store as? SQLStore<SQLiteConnection> {
            return try store.read { db in try db.row(sql, args) { $0.int(0) } ?? 0 }
        }
        let store = try XCTUnwrap(engine.store as? SQLStore<PostgresConnection>)
        return try store.read { db in try db.row(sql, args) { $0.int(0) } ?? 0 }
    }

    /// `call` made, then made again with the same proof 30 s later: the same session; one second
    /// past the interval, refused with `usedCode`'s error.
    private func assertRetried(
        _ engine: Engine, _ clock: ManualClock, uid: String, usedCode: PhoneAuthError.Code = .sessionExpired,
        reason: String? = "alreadyUsed", _ call: () throws -> SignInResult,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let before = try sessionCount(engine, uid)
        let made = try call()
        clock.advance(seconds: 30)
        let retried = try call()
        XCTAssertEqual(retried.refreshToken, made.refreshToken, "the same session", file: file, line: line)
        XCTAssertEqual(retried.user.uid, uid, file: file, line: line)
        XCTAssertEqual(try sessionCount(engine, uid), before + 1, "one session, not two", file: file, line: line)
        XCTAssertEqual(try engine.sessions.refreshIdToken(retried.refreshToken).user.uid, uid, file: file, line: line)
        clock.advance(seconds: 1)
        assertError(usedCode, reason: reason, file: file, line: line) { _ = try call() }
    }

    func testLinkUpdateAndReauthenticateRetriedGetTheSameSession() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let custom = try engine.signIn.signIn(
            withCustomToken: try engine.signIn.createCustomToken(uid: "u1", claims: nil))
        let link = try credential(engine, first)
        try assertRetried(engine, clock, uid: "u1") {
            try engine.accounts.link(idToken: custom.idToken, credential: link)
        }
        let signedIn = try signIn(engine, first)
        let update = try credential(engine, second)
        try assertRetried(engine, clock, uid: "u1") {
            try engine.accounts.updatePhoneNumber(idToken: signedIn.idToken, credential: update)
        }
        XCTAssertEqual(try engine.accounts.user(uid: "u1").phoneNumber, second)
        let reauthentication = try credential(engine, second)
        try assertRetried(engine, clock, uid: "u1") {
            try engine.accounts.reauthenticate(idToken: signedIn.idToken, credential: reauthentication)
        }
    }

    func testARetryIsRefusedToAnotherUserAndOnceTheChangeNoLongerHolds() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let user = try signIn(engine, first)
        let other = try signIn(engine, third)
        let update = try credential(engine, second)
        _ = try engine.accounts.updatePhoneNumber(idToken: user.idToken, credential: update)
        // Another user's token with the same code: the code is simply used.
        assertError(.sessionExpired, reason: "alreadyUsed") {
            _ = try engine.accounts.updatePhoneNumber(idToken: other.idToken, credential: update)
        }
        XCTAssertEqual(try engine.accounts.user(uid: other.user.uid).phoneNumber, third)
        // The number changed back meanwhile: the change the code made no longer holds.
        _ = try engine.accounts.updateUser(uid: user.user.uid, phoneNumber: .some(first))
        assertError(.sessionExpired, reason: "alreadyUsed") {
            _ = try engine.accounts.updatePhoneNumber(idToken: user.idToken, credential: update)
        }
        XCTAssertEqual(try engine.accounts.user(uid: user.user.uid).phoneNumber, first)
    }

    func testAPhoneFactorsEnrolmentRetriedEnrolsOneFactor() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let user = try signIn(engine, first)
        let started = try engine.multiFactor.startPhoneEnrollment(
            idToken: user.idToken, phoneNumber: second, languageCode: nil, clientIp: nil)
        let enrolment = PhoneCredential(verificationId: started.verificationId, verificationCode: code)
        try assertRetried(engine, clock, uid: user.user.uid) {
            try engine.multiFactor.finishPhoneEnrollment(idToken: user.idToken, credential: enrolment, displayName: nil)
        }
        XCTAssertEqual(try engine.accounts.user(uid: user.user.uid).factors.map(\.phoneNumber), [second])
    }

    /// The challenge's session id, from the secondFactorRequired error a sign-in raises.
    private func challenge(_ engine: Engine, _ phone: String) throws -> String {
        do {
            _ = try signIn(engine, phone)
        } catch let error as PhoneAuthError where error.code == .secondFactorRequired {
            return try XCTUnwrap(error.detail("session")?.stringValue)
        }
        XCTFail("no secondFactorRequired")
        return ""
    }

    func testAChallengeMetBySMSRetriedGetsTheSameSession() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let user = try signIn(engine, first)
        let started = try engine.multiFactor.startPhoneEnrollment(
            idToken: user.idToken, phoneNumber: second, languageCode: nil, clientIp: nil)
        let enrolled = try engine.multiFactor.finishPhoneEnrollment(
            idToken: user.idToken,
            credential: PhoneCredential(verificationId: started.verificationId, verificationCode: code),
            displayName: nil)
        let hint = try XCTUnwrap(enrolled.user.factors.first?.enrollmentId)
        clock.advance(seconds: 61)
        let session = try challenge(engine, first)
        let sent = try engine.multiFactor.verifySecondFactor(
            hint: hint, session: session, languageCode: nil, clientIp: nil)
        let proof = PhoneCredential(verificationId: sent.verificationId, verificationCode: code)
        try assertRetried(engine, clock, uid: user.user.uid, usedCode: .invalidMultiFactorSession, reason: nil) {
            try engine.multiFactor.resolveSignIn(session: session, assertion: .phone(proof))
        }
        // A wrong code for the met challenge is no retry.
        let wrong = PhoneCredential(verificationId: sent.verificationId, verificationCode: "000000")
        assertError(.invalidMultiFactorSession) {
            _ = try engine.multiFactor.resolveSignIn(session: session, assertion: .phone(wrong))
        }
    }

    func testAChallengeMetByTotpRetriedWithTheSameCodeGetsTheSameSessionAndNoOtherCodeDoes() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let user = try signIn(engine, first)
        let started = try engine.multiFactor.startTotpEnrollment(idToken: user.idToken, accountName: nil, issuer: nil)
        let secret = try XCTUnwrap(base32Decode(started.secretKey))
        let enrolled = try engine.multiFactor.finishTotpEnrollment(
            idToken: user.idToken, sessionInfo: started.sessionInfo,
            code: Totp.code(secret: secret, step: Totp.step(at: clock.now())), displayName: "app")
        let factor = try XCTUnwrap(enrolled.user.factors.first?.enrollmentId)
        clock.advance(seconds: 61)
        let session = try challenge(engine, first)
        let code = Totp.code(secret: secret, step: Totp.step(at: clock.now()))
        let met = try engine.multiFactor.resolveSignIn(
            session: session, assertion: .totp(enrollmentId: factor, code: code))
        clock.advance(seconds: 20)
        let retried = try engine.multiFactor.resolveSignIn(
            session: session, assertion: .totp(enrollmentId: factor, code: code))
        XCTAssertEqual(retried.refreshToken, met.refreshToken, "the same session")
        // The next step's code is a new proof, not the accepted one: the challenge is used.
        let next = Totp.code(secret: secret, step: Totp.step(at: clock.now()) + 1)
        assertError(.invalidMultiFactorSession) {
            _ = try engine.multiFactor.resolveSignIn(
                session: session, assertion: .totp(enrollmentId: factor, code: next))
        }
        clock.advance(seconds: 11)
        assertError(.invalidMultiFactorSession) {
            _ = try engine.multiFactor.resolveSignIn(
                session: session, assertion: .totp(enrollmentId: factor, code: code))
        }
    }

    /// A code one call spent is only used for any other: a number change's code signs no one in
    /// (its session may carry a second factor the sign-in never met), a sign-in's changes nothing.
    func testACodeSpentByOneCallIsOnlyUsedForAnother() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let user = try signIn(engine, first)
        let update = try credential(engine, second)
        _ = try engine.accounts.updatePhoneNumber(idToken: user.idToken, credential: update)
        assertError(.sessionExpired, reason: "alreadyUsed") { _ = try engine.signIn.signIn(with: update) }
        assertError(.sessionExpired, reason: "alreadyUsed") {
            _ = try engine.accounts.reauthenticate(idToken: user.idToken, credential: update)
        }
        let signInCode = try credential(engine, second)
        _ = try engine.signIn.signIn(with: signInCode)
        assertError(.sessionExpired, reason: "alreadyUsed") {
            _ = try engine.accounts.reauthenticate(idToken: user.idToken, credential: signInCode)
        }
    }

    private func enrolTotp(
        _ engine: Engine, _ clock: ManualClock, _ user: SignInResult
    ) throws -> (
        secret: [UInt8], enrolled: SignInResult, sessionInfo: String, code: String
    ) {
        let started = try engine.multiFactor.startTotpEnrollment(idToken: user.idToken, accountName: nil, issuer: nil)
        let secret = try XCTUnwrap(base32Decode(started.secretKey))
        let code = Totp.code(secret: secret, step: Totp.step(at: clock.now()))
        let enrolled = try engine.multiFactor.finishTotpEnrollment(
            idToken: user.idToken, sessionInfo: started.sessionInfo, code: code, displayName: "app")
        return (secret, enrolled, started.sessionInfo, code)
    }

    func testATotpEnrolmentRetriedWithTheSameCodeEnrolsOneFactor() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let user = try signIn(engine, first)
        let (secret, enrolled, sessionInfo, code) = try enrolTotp(engine, clock, user)
        clock.advance(seconds: 20)
        func finish(_ code: String) throws -> SignInResult {
            try engine.multiFactor.finishTotpEnrollment(
                idToken: user.idToken, sessionInfo: sessionInfo, code: code, displayName: "app")
        }
        XCTAssertEqual(try finish(code).refreshToken, enrolled.refreshToken, "the same session")
        XCTAssertEqual(try engine.accounts.user(uid: user.user.uid).factors.count, 1, "one factor")
        let next = Totp.code(secret: secret, step: Totp.step(at: clock.now()) + 1)
        assertError(.invalidMultiFactorSession) { _ = try finish(next) }
        clock.advance(seconds: 11)
        assertError(.invalidMultiFactorSession) { _ = try finish(code) }
    }

    /// Guessing TOTP codes against a met challenge within the window counts as against an open
    /// one: toward the factor's lockout, and the challenge's tries, after which even the code
    /// that met it is no retry.
    func testWrongTotpCodesAgainstAMetChallengeAreCounted() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock) { $0.maxAttempts = 3 }
        let user = try signIn(engine, first)
        let (secret, enrolled, _, _) = try enrolTotp(engine, clock, user)
        let factor = try XCTUnwrap(enrolled.user.factors.first?.enrollmentId)
        clock.advance(seconds: 61)
        let session = try challenge(engine, first)
        let code = Totp.code(secret: secret, step: Totp.step(at: clock.now()))
        _ = try engine.multiFactor.resolveSignIn(session: session, assertion: .totp(enrollmentId: factor, code: code))
        let wrong = code == "000000" ? "000001" : "000000"
        for _ in 0..<3 {
            assertError(.invalidMultiFactorSession) {
                _ = try engine.multiFactor.resolveSignIn(
                    session: session, assertion: .totp(enrollmentId: factor, code: wrong))
            }
        }
        assertError(.invalidMultiFactorSession) {
            _ = try engine.multiFactor.resolveSignIn(
                session: session, assertion: .totp(enrollmentId: factor, code: code))
        }
        XCTAssertEqual(
            try sessionCount(engine, user.user.uid), 3, "the first sign-in, the enrolment's, the challenge's")
        // The factor counted them: its lockout comes as it would for guesses on open challenges.
        XCTAssertEqual(try count(engine, "SELECT failures FROM factors WHERE enrollment_id = ?", [.text(factor)]), 3)
    }

    func testWithRetriesOffEveryUsedProofIsRefusedAtOnce() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock) { $0.signInRetrySeconds = 0 }
        let user = try signIn(engine, first)
        let update = try credential(engine, second)
        _ = try engine.accounts.updatePhoneNumber(idToken: user.idToken, credential: update)
        assertError(.sessionExpired, reason: "alreadyUsed") {
            _ = try engine.accounts.updatePhoneNumber(idToken: user.idToken, credential: update)
        }
    }
}
