import XCTest
@testable import PhoneAuthCore

final class MultiFactorTests: XCTestCase {
    private let first = "+16505551234", second = "+16505559999"

    func makeEngine(_ clock: Clock = SystemClock(), _ adjust: (inout EngineConfig) -> Void = { _ in }) throws -> Engine
    {
        try Engine(
            config: makeConfig(temporaryDirectory()) {
                $0.testPhoneNumbers = [self.first: "123456", self.second: "654321"]
                $0.resendAfterSeconds = 0
                adjust(&$0)
            }, clock: clock)
    }

    func signIn(_ engine: Engine, _ phone: String, _ code: String) throws -> SignInResult {
        let started = try engine.verification.verifyPhoneNumber(phone)
        return try engine.signIn.signIn(
            with: PhoneCredential(verificationId: started.verificationId, verificationCode: code))
    }

    /// Signs in by the first test number and enrols a TOTP factor; the secret and the enrolment.
    private func enrolTotp(_ engine: Engine, at time: Timestamp) throws -> (secret: [UInt8], session: SignInResult) {
        let session = try signIn(engine, first, "123456")
        let started = try engine.multiFactor.startTotpEnrollment(
            idToken: session.idToken, accountName: nil, issuer: nil)
        let secret = try XCTUnwrap(base32Decode(started.secretKey))
        let code = Totp.code(secret: secret, step: Totp.step(at: time))
        return (
            secret,
            try engine.multiFactor.finishTotpEnrollment(
                idToken: session.idToken, sessionInfo: started.sessionInfo, code: code, displayName: "app")
        )
    }

    /// The challenge's session id, from the secondFactorRequired error a sign-in raises.
    func challenge(_ body: () throws -> Void) throws -> String {
        do {
            try body()
        } catch let error as PhoneAuthError where error.code == .secondFactorRequired {
            return try XCTUnwrap(error.details.first(where: { $0.0 == "session" })?.1.stringValue)
        }
        XCTFail("no secondFactorRequired")
        return ""
    }

    func testTotpMatchesRFC6238Vectors() {
        let secret = Array("12345678901234567890".utf8)
        XCTAssertEqual(Base32.encode(secret), "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        let vectors: [(Int64, String)] = [
            (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
            (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
        ]
        for (time, code) in vectors {
            XCTAssertEqual(
                Totp.code(secret: secret, step: Totp.step(at: Timestamp(seconds: time)), length: 8), code, "T=\(time)")
        }
        XCTAssertEqual(Totp.code(secret: secret, step: 1), "287082", "6 digits are the last six")
    }

    func testTotpAcceptsOneStepEitherSideOnceEach() {
        let secret = Totp.newSecret()
        let now = Timestamp(seconds: 1_800_000_000)
        let step = Totp.step(at: now)
        for offset in [-1, 0, 1] as [Int64] {
            XCTAssertEqual(
                Totp.matchingStep(
                    secret: secret, code: Totp.code(secret: secret, step: step + offset), at: now, after: 0),
                step + offset)
        }
        for offset in [-2, 2] as [Int64] {
            XCTAssertNil(
                Totp.matchingStep(
                    secret: secret, code: Totp.code(secret: secret, step: step + offset), at: now, after: 0))
        }
        let code = Totp.code(secret: secret, step: step)
        XCTAssertNil(
            Totp.matchingStep(secret: secret, code: code, at: now, after: step), "a step's code is accepted once")
        XCTAssertNil(Totp.matchingStep(secret: secret, code: "12345", at: now, after: 0))
    }

    func testTotpSignInRejectsReplayAndCountsWrongCodes() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let (secret, enrolled) = try enrolTotp(engine, at: clock.now())
        let factor = try XCTUnwrap(enrolled.user.factors.first)
        let enrolmentCode = Totp.code(secret: secret, step: Totp.step(at: clock.now()))
        var session = try challenge { _ = try signIn(engine, first, "123456") }
        assertError(.invalidVerificationCode) {
            _ = try engine.multiFactor.resolveSignIn(
                session: session, assertion: .totp(enrollmentId: factor.enrollmentId, code: enrolmentCode))
        }
        clock.advance(seconds: 30)
        let next = Totp.code(secret: secret, step: Totp.step(at: clock.now()))
        let signedIn = try engine.multiFactor.resolveSignIn(
            session: session, assertion: .totp(enrollmentId: factor.enrollmentId, code: next))
        let claims = try engine.sessions.verifyIdToken(signedIn.idToken, checkRevoked: true)
        XCTAssertEqual(claims["firebase"]?["sign_in_second_factor"], .string("totp"))
        XCTAssertEqual(claims["firebase"]?["second_factor_identifier"], .string(factor.enrollmentId))
        let refreshed = try engine.sessions.verifyIdToken(
            try engine.sessions.refreshIdToken(signedIn.refreshToken).idToken, checkRevoked: true)
        XCTAssertEqual(
            refreshed["firebase"]?["sign_in_second_factor"], .string("totp"), "refreshed tokens keep the second factor")

        session = try challenge { _ = try signIn(engine, first, "123456") }
        for _ in 0..<4 {
            assertError(.invalidVerificationCode) {
                _ = try engine.multiFactor.resolveSignIn(
                    session: session, assertion: .totp(enrollmentId: factor.enrollmentId, code: "000000"))
            }
        }
        assertError(.invalidVerificationCode) {
            _ = try engine.multiFactor.resolveSignIn(
                session: session, assertion: .totp(enrollmentId: factor.enrollmentId, code: "000001"))
        }
        clock.advance(seconds: 30)
        let good = Totp.code(secret: secret, step: Totp.step(at: clock.now()))
        assertError(.invalidMultiFactorSession) {
            _ = try engine.multiFactor.resolveSignIn(
                session: session, assertion: .totp(enrollmentId: factor.enrollmentId, code: good))
        }
    }

    func testEnrolmentNeedsARecentSignIn() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let session = try signIn(engine, first, "123456")
        clock.advance(seconds: 301)
        assertError(.requiresRecentLogin) {
            _ = try engine.multiFactor.startPhoneEnrollment(
                idToken: session.idToken, phoneNumber: second, languageCode: nil, clientIp: nil)
        }
        assertError(.requiresRecentLogin) {
            _ = try engine.multiFactor.startTotpEnrollment(idToken: session.idToken, accountName: nil, issuer: nil)
        }
        let started = try engine.verification.verifyPhoneNumber(first)
        let again = try engine.accounts.reauthenticate(
            idToken: session.idToken,
            credential: PhoneCredential(verificationId: started.verificationId, verificationCode: "123456"))
        XCTAssertEqual(
            try engine.sessions.verifyIdToken(again.idToken, checkRevoked: false)["auth_time"],
            .int(clock.now().seconds))
        XCTAssertNoThrow(
            try engine.multiFactor.startPhoneEnrollment(
                idToken: again.idToken, phoneNumber: second, languageCode: nil, clientIp: nil))
    }

    func testChallengeExpiresAndIsSingleUse() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let (secret, enrolled) = try enrolTotp(engine, at: clock.now())
        let enrollmentId = try XCTUnwrap(enrolled.user.factors.first?.enrollmentId)
        clock.advance(seconds: 60)
        let session = try challenge { _ = try signIn(engine, first, "123456") }
        clock.advance(seconds: 301)
        let code = Totp.code(secret: secret, step: Totp.step(at: clock.now()))
        assertError(.invalidMultiFactorSession) {
            _ = try engine.multiFactor.resolveSignIn(
                session: session, assertion: .totp(enrollmentId: enrollmentId, code: code))
        }
        assertError(.invalidMultiFactorSession) {
            _ = try engine.multiFactor.verifySecondFactor(
                hint: enrollmentId, session: session, languageCode: nil, clientIp: nil)
        }
        assertError(.missingMultiFactorSession) {
            _ = try engine.multiFactor.resolveSignIn(session: nil, assertion: nil)
        }
        assertError(.missingMultiFactorInfo) {
            _ = try engine.multiFactor.resolveSignIn(session: session, assertion: nil)
        }
    }

    func testSecondFactorCodesServeOnlyTheirPurpose() throws {
        let engine = try makeEngine()
        let session = try signIn(engine, first, "123456")
        let enrol = try engine.multiFactor.startPhoneEnrollment(
            idToken: session.idToken, phoneNumber: second, languageCode: nil, clientIp: nil)
        assertError(.sessionExpired, reason: "wrongPurpose") {
            _ = try engine.signIn.signIn(
                with: PhoneCredential(verificationId: enrol.verificationId, verificationCode: "654321"))
        }
        let plain = try engine.verification.verifyPhoneNumber(second)
        assertError(.sessionExpired, reason: "wrongPurpose") {
            _ = try engine.multiFactor.finishPhoneEnrollment(
                idToken: session.idToken,
                credential: PhoneCredential(verificationId: plain.verificationId, verificationCode: "654321"),
                displayName: nil)
        }
        let enrolAgain = try engine.multiFactor.startPhoneEnrollment(
            idToken: session.idToken, phoneNumber: second, languageCode: nil, clientIp: nil)
        let enrolled = try engine.multiFactor.finishPhoneEnrollment(
            idToken: session.idToken,
            credential: PhoneCredential(verificationId: enrolAgain.verificationId, verificationCode: "654321"),
            displayName: "work")
        let hint = try XCTUnwrap(enrolled.user.factors.first?.enrollmentId)
        // The enrolled number is a second factor only: it signs no one in by itself.
        assertError(.unsupportedFirstFactor) { _ = try signIn(engine, second, "654321") }
        let mfaSession = try challenge { _ = try signIn(engine, first, "123456") }
        let mfaCode = try engine.multiFactor.verifySecondFactor(
            hint: hint, session: mfaSession, languageCode: nil, clientIp: nil)
        assertError(.sessionExpired, reason: "wrongPurpose") {
            _ = try engine.signIn.signIn(
                with: PhoneCredential(verificationId: mfaCode.verificationId, verificationCode: "654321"))
        }
        let other = try challenge { _ = try signIn(engine, first, "123456") }
        assertError(.sessionExpired, reason: "wrongPurpose") {
            _ = try engine.multiFactor.resolveSignIn(
                session: other,
                assertion: .phone(PhoneCredential(verificationId: mfaCode.verificationId, verificationCode: "654321")))
        }
    }

    func testTotpSecretIsStoredSealed() throws {
        let dir = temporaryDirectory()
        let clock = ManualClock()
        let engine = try Engine(config: makeConfig(dir) { $0.testPhoneNumbers = [self.first: "123456"] }, clock: clock)
        let (secret, _) = try enrolTotp(engine, at: clock.now())
        engine.close()
        let stored = try storedBytes(dir)
        XCTAssertGreaterThan(stored.count, 0)
        XCTAssertFalse(contains(stored, secret), "the raw TOTP secret must not be in the database")
    }

    func testDeleteUserRemovesFactorsAndDisabledUsersCannotResolve() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let (secret, enrolled) = try enrolTotp(engine, at: clock.now())
        let enrollmentId = try XCTUnwrap(enrolled.user.factors.first?.enrollmentId)
        clock.advance(seconds: 30)
        let session = try challenge { _ = try signIn(engine, first, "123456") }
        _ = try engine.accounts.updateUser(uid: enrolled.user.uid, disabled: true)
        let code = Totp.code(secret: secret, step: Totp.step(at: clock.now()))
        assertError(.userDisabled) {
            _ = try engine.multiFactor.resolveSignIn(
                session: session, assertion: .totp(enrollmentId: enrollmentId, code: code))
        }
        try engine.accounts.deleteUser(uid: enrolled.user.uid)
        let fresh = try signIn(engine, first, "123456")
        XCTAssertTrue(fresh.isNewUser)
        XCTAssertTrue(fresh.user.factors.isEmpty, "a new account on the same number starts without factors")
    }
}

extension MultiFactorTests {
    func testASignInRequestDoesNotCancelAPendingSecondFactor() throws {
        let engine = try makeEngine()
        let session = try signIn(engine, first, "123456")
        let enrol = try engine.multiFactor.startPhoneEnrollment(
            idToken: session.idToken, phoneNumber: second, languageCode: nil, clientIp: nil)
        let enrolled = try engine.multiFactor.finishPhoneEnrollment(
            idToken: session.idToken,
            credential: PhoneCredential(verificationId: enrol.verificationId, verificationCode: "654321"),
            displayName: nil)
        let hint = try XCTUnwrap(enrolled.user.factors.first?.enrollmentId)
        let challengeId = try challenge { _ = try signIn(engine, first, "123456") }
        let code = try engine.multiFactor.verifySecondFactor(
            hint: hint, session: challengeId, languageCode: nil, clientIp: nil)
        _ = try engine.verification.verifyPhoneNumber(second)  // anyone may ask for a sign-in code to the same number
        let resolved = try engine.multiFactor.resolveSignIn(
            session: challengeId,
            assertion: .phone(PhoneCredential(verificationId: code.verificationId, verificationCode: "654321")))
        XCTAssertEqual(resolved.user.uid, enrolled.user.uid)
    }

    func testFactorsListInEnrolmentOrder() throws {
        let engine = try makeEngine { $0.mfaMaxFactors = 6 }
        let session = try signIn(engine, first, "123456")
        var names: [String] = []
        for i in 0..<6 {
            let started = try engine.multiFactor.startTotpEnrollment(
                idToken: session.idToken, accountName: nil, issuer: nil)
            let secret = try XCTUnwrap(base32Decode(started.secretKey))
            let code = Totp.code(secret: secret, step: Totp.step(at: SystemClock().now()))
            names.append("app \(i)")
            _ = try engine.multiFactor.finishTotpEnrollment(
                idToken: session.idToken, sessionInfo: started.sessionInfo, code: code,
                displayName: Label(names.last, field: "displayName"))
        }
        XCTAssertEqual(try engine.accounts.user(uid: session.user.uid).factors.map(\.displayName), names)
        assertError(.maximumSecondFactorCountExceeded) {
            _ = try engine.multiFactor.startTotpEnrollment(idToken: session.idToken, accountName: nil, issuer: nil)
        }
    }
}

extension MultiFactorTests {
    func testWrongTotpCodesLockTheFactorAcrossChallenges() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let (secret, enrolled) = try enrolTotp(engine, at: clock.now())
        let id = try XCTUnwrap(enrolled.user.factors.first?.enrollmentId)
        clock.advance(seconds: 30)
        for _ in 0..<(FactorLockout.failuresPerLock - 1) {
            let session = try challenge { _ = try signIn(engine, first, "123456") }
            assertError(.invalidVerificationCode) {
                _ = try engine.multiFactor.resolveSignIn(
                    session: session, assertion: .totp(enrollmentId: id, code: "000000"))
            }
        }
        var session = try challenge { _ = try signIn(engine, first, "123456") }
        assertError(.invalidVerificationCode) {
            _ = try engine.multiFactor.resolveSignIn(
                session: session, assertion: .totp(enrollmentId: id, code: "000000"))
        }
        var good = Totp.code(secret: secret, step: Totp.step(at: clock.now()))
        assertError(.tooManyRequests, reason: "factorLocked") {
            _ = try engine.multiFactor.resolveSignIn(session: session, assertion: .totp(enrollmentId: id, code: good))
        }
        clock.advance(seconds: 301)
        session = try challenge { _ = try signIn(engine, first, "123456") }
        good = Totp.code(secret: secret, step: Totp.step(at: clock.now()))
        XCTAssertNoThrow(
            try engine.multiFactor.resolveSignIn(session: session, assertion: .totp(enrollmentId: id, code: good)),
            "the lock ends")
        XCTAssertEqual(FactorLockout.lockMilliseconds(afterFailures: 10), 600_000, "each lock doubles")
        XCTAssertEqual(FactorLockout.lockMilliseconds(afterFailures: 500), 86_400_000)
        XCTAssertNil(FactorLockout.lockMilliseconds(afterFailures: 6))
    }

    func testATemporaryProofOnlySignsInItsOwnerOnce() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let owner = try signIn(engine, first, "123456")
        let other = try engine.signIn.signIn(
            withCustomToken: try engine.signIn.createCustomToken(uid: "other", claims: nil))
        var proof = ""
        do {
            let started = try engine.verification.verifyPhoneNumber(first)
            _ = try engine.accounts.link(
                idToken: other.idToken,
                credential: PhoneCredential(verificationId: started.verificationId, verificationCode: "123456"))
        } catch let error as PhoneAuthError where error.code == .credentialAlreadyInUse {
            proof = try XCTUnwrap(error.details.first(where: { $0.0 == "temporaryProof" })?.1.stringValue)
        }
        let credential = try XCTUnwrap(PhoneCredential.temporaryProof(proof))
        assertError(.invalidCredential, reason: "temporaryProof") {
            _ = try engine.accounts.link(idToken: other.idToken, credential: credential)
        }
        assertError(.invalidCredential) {
            _ = try engine.accounts.reauthenticate(idToken: owner.idToken, credential: credential)
        }
        // A sign-in verification of the number is not the proof, nor replaced by it.
        let started = try engine.verification.verifyPhoneNumber(first)
        XCTAssertNotEqual(started.verificationId, credential.verificationId)
        let signedIn = try engine.signIn.signIn(with: credential)
        XCTAssertEqual(signedIn.user.uid, owner.user.uid)
        // Presented again soon after, as a retry: the same session; later, used.
        XCTAssertEqual(try engine.signIn.signIn(with: credential).refreshToken, signedIn.refreshToken)
        clock.advance(seconds: 31)
        assertError(.invalidCredential, reason: "alreadyUsed") { _ = try engine.signIn.signIn(with: credential) }
    }

    func testAProofDiesWhenItsNumberChangesHands() throws {
        let engine = try makeEngine()
        let owner = try signIn(engine, first, "123456")
        let other = try engine.signIn.signIn(
            withCustomToken: try engine.signIn.createCustomToken(uid: "other", claims: nil))
        var proof: PhoneCredential?
        do {
            let started = try engine.verification.verifyPhoneNumber(first)
            _ = try engine.accounts.link(
                idToken: other.idToken,
                credential: PhoneCredential(verificationId: started.verificationId, verificationCode: "123456"))
        } catch let error as PhoneAuthError where error.code == .credentialAlreadyInUse {
            proof = error.details.first(where: { $0.0 == "temporaryProof" })?.1.stringValue.flatMap(
                PhoneCredential.temporaryProof)
        }
        _ = try engine.accounts.updateUser(uid: owner.user.uid, phoneNumber: .some(nil))
        assertError(.invalidCredential, reason: "ownerChanged") {
            _ = try engine.signIn.signIn(with: try XCTUnwrap(proof))
        }
    }

    func testRevokingEndsPendingChallengesAndAccountChangesCheckTheSession() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let (secret, enrolled) = try enrolTotp(engine, at: clock.now())
        let id = try XCTUnwrap(enrolled.user.factors.first?.enrollmentId)
        clock.advance(seconds: 30)
        let session = try challenge { _ = try signIn(engine, first, "123456") }
        try engine.sessions.revokeRefreshTokens(uid: enrolled.user.uid)
        let code = Totp.code(secret: secret, step: Totp.step(at: clock.now()))
        assertError(.invalidMultiFactorSession) {
            _ = try engine.multiFactor.resolveSignIn(session: session, assertion: .totp(enrollmentId: id, code: code))
        }
        assertError(.invalidUserToken, reason: "sessionEnded") {
            _ = try engine.multiFactor.unenroll(idToken: enrolled.idToken, enrollmentId: id)
        }
        assertError(.invalidUserToken, reason: "sessionEnded") {
            _ = try engine.accounts.unlink(idToken: enrolled.idToken, providerId: "phone")
        }
    }

    func testLinkingAndUnlinkingNeedARecentSignIn() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let custom = try engine.signIn.signIn(
            withCustomToken: try engine.signIn.createCustomToken(uid: "u", claims: nil))
        let phoneUser = try signIn(engine, second, "654321")
        clock.advance(seconds: 301)
        let started = try engine.verification.verifyPhoneNumber(first)
        assertError(.requiresRecentLogin) {
            _ = try engine.accounts.link(
                idToken: custom.idToken,
                credential: PhoneCredential(verificationId: started.verificationId, verificationCode: "123456"))
        }
        assertError(.requiresRecentLogin) {
            _ = try engine.accounts.unlink(idToken: phoneUser.idToken, providerId: "phone")
        }
    }
}
