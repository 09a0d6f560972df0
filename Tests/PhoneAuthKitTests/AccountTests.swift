import Foundation
@testable import PhoneAuthCore
import PhoneAuthKit
import XCTest

/// Linking and changing numbers, temporary proofs, custom tokens, authenticator apps and app
/// verification through the Swift API.
final class AccountTests: KitTestCase {
    func signIn(_ auth: PhoneAuth, _ number: String, _ code: String) async throws -> PhoneAuthKit.SignInResult {
        let verification = try await auth.verifyPhoneNumber(number)
        return try await auth.signIn(
            with: try PhoneAuth.credential(verificationID: verification.verificationID, verificationCode: code))
    }

    func credential(_ auth: PhoneAuth, _ number: String, _ code: String) async throws -> PhoneAuthKit.PhoneCredential {
        let verification = try await auth.verifyPhoneNumber(number)
        return try PhoneAuth.credential(verificationID: verification.verificationID, verificationCode: code)
    }

    func testANumberAnotherAccountHasGivesATemporaryProofThatSignsInThere() async throws {
        let auth = try open()
        let owner = try await signIn(auth, testNumber, "123456")
        let other = try await auth.createUser(uid: "other")
        let token = try await auth.signIn(withCustomToken: try await auth.createCustomToken(uid: other.uid))
        XCTAssertEqual(token.user.uid, "other")
        var proof: String?
        do {
            _ = try await auth.link(
                idToken: token.idToken, credential: try await credential(auth, testNumber, "123456"))
            XCTFail("linked a number another account has")
        } catch let error as PhoneAuthKit.PhoneAuthError {
            XCTAssertEqual(error.code, .credentialAlreadyInUse)
            XCTAssertFalse(error.detailsJSON.contains("temporaryProof"), "the proof is kept out of what gets logged")
            XCTAssertEqual(
                error.phoneNumber, testNumber,
                "the number the code proved, which Firebase's clients keep with the proof")
            XCTAssertFalse(
                error.detailsJSON.contains(testNumber) || "\(error)".contains(testNumber),
                "no whole number in what gets logged")
            proof = error.temporaryProof
        }
        XCTAssertNil(PhoneAuthKit.PhoneCredential(temporaryProof: "not a proof"))
        let viaProof = try await auth.signIn(
            with: try XCTUnwrap(PhoneAuthKit.PhoneCredential(temporaryProof: try XCTUnwrap(proof))))
        XCTAssertEqual(viaProof.user.uid, owner.user.uid)

        let linked = try await auth.link(
            idToken: token.idToken, credential: try await credential(auth, secondNumber, "654321"),
            clientIP: "198.51.100.4")
        XCTAssertEqual(linked.user.phoneNumber, secondNumber)
        let again = try await auth.reauthenticate(
            idToken: linked.idToken, credential: try await credential(auth, secondNumber, "654321"))
        XCTAssertEqual(again.user.uid, "other")
        let unlinked = try await auth.unlinkPhoneNumber(idToken: again.idToken)
        XCTAssertNil(unlinked.phoneNumber)
        let changed = try await auth.updatePhoneNumber(
            idToken: viaProof.idToken, credential: try await credential(auth, secondNumber, "654321"))
        XCTAssertEqual(changed.user.phoneNumber, secondNumber)
        // A change to a number another account has is refused with a proof, as a link is.
        do {
            _ = try await auth.updatePhoneNumber(
                idToken: again.idToken, credential: try await credential(auth, secondNumber, "654321"))
            XCTFail("changed to a number another account has")
        } catch let error as PhoneAuthKit.PhoneAuthError {
            XCTAssertEqual(error.code, .credentialAlreadyInUse)
            XCTAssertEqual(error.phoneNumber, secondNumber)
            let toOwner = try XCTUnwrap(
                PhoneAuthKit.PhoneCredential(temporaryProof: try XCTUnwrap(error.temporaryProof)))
            let signedIn = try await auth.signIn(with: toOwner)
            XCTAssertEqual(signedIn.user.uid, owner.user.uid)
        }
    }

    func testAnAdminUpdateChangesNumberAndClaimsTogetherOrNotAtAll() async throws {
        let auth = try open()
        let user = try await auth.createUser(uid: "u1", phoneNumber: testNumber)
        XCTAssertNil(user.tokensValidAfter)
        // Reserved claims refuse the whole update: the number stays.
        await assertThrows(.invalidArgument) {
            _ = try await auth.updateUser(
                uid: "u1", phoneNumber: .some(secondNumber), customClaimsJSON: .some(#"{"sub": "x"}"#))
        }
        let unchanged = try await auth.user(uid: "u1")
        XCTAssertEqual(unchanged.phoneNumber, testNumber)
        let updated = try await auth.updateUser(
            uid: "u1", displayName: .some("Ada"), phoneNumber: .some(secondNumber),
            customClaimsJSON: .some(#"{"role": "admin"}"#))
        XCTAssertEqual(
            [updated.phoneNumber, updated.displayName, updated.customClaimsJSON],
            [secondNumber, "Ada", #"{"role":"admin"}"#])
        let cleared = try await auth.updateUser(uid: "u1", phoneNumber: .some(nil), customClaimsJSON: .some(nil))
        XCTAssertNil(cleared.phoneNumber)
        XCTAssertNil(cleared.customClaimsJSON)
        try await auth.revokeRefreshTokens(uid: "u1")
        let afterRevoking = try await auth.user(uid: "u1")
        let revoked = try XCTUnwrap(afterRevoking.tokensValidAfter)
        XCTAssertLessThan(abs(revoked.timeIntervalSinceNow), 60)
        XCTAssertTrue(PhoneAuth.hasMethod("signInWithCredential"))
        XCTAssertFalse(PhoneAuth.hasMethod("noSuchMethod"))
    }

    func testAnAuthenticatorAppIsASecondFactor() async throws {
        let auth = try open()
        let first = try await signIn(auth, testNumber, "123456")
        let enrollment = try await auth.startTotpEnrollment(idToken: first.idToken, issuer: "Acme")
        XCTAssertTrue(enrollment.otpauthURI.hasPrefix("otpauth://totp/"))
        XCTAssertFalse("\(enrollment)".contains(enrollment.secretKey), "a description shows no secret")
        let secret = try XCTUnwrap(Self.base32Decode(enrollment.secretKey))
        let now = Totp.step(at: SystemClock().now())
        _ = try await auth.finishTotpEnrollment(
            idToken: first.idToken, enrollment: enrollment,
            code: Totp.code(secret: secret, step: now), displayName: "phone app")
        var challenge: PhoneAuthKit.MultiFactorChallenge?
        do { _ = try await signIn(auth, testNumber, "123456") } catch let error as PhoneAuthKit.PhoneAuthError {
            challenge = error.multiFactorChallenge
        }
        let hint = try XCTUnwrap(challenge?.hints.first { $0.factorId == "totp" })
        let session = try XCTUnwrap(challenge?.session)
        let wrong = Totp.code(secret: secret, step: now + 1) == "000000" ? "111111" : "000000"
        await assertThrows(.invalidVerificationCode) {
            _ = try await auth.resolveSignIn(session: session, totpEnrollmentID: hint.enrollmentID, code: wrong)
        }
        // The next step's code: a step's code is accepted once.
        let signedIn = try await auth.resolveSignIn(
            session: session, totpEnrollmentID: hint.enrollmentID,
            code: Totp.code(secret: secret, step: now + 1))
        XCTAssertEqual(signedIn.user.uid, first.user.uid)
    }

    func testAppVerificationByPushOrCaptcha() async throws {
        let auth = try open()
        let pushes = PushInbox()
        auth.setPushSender { push in
            pushes.put(push); return true
        }
        await assertThrows(.missingAppCredential) { _ = try await auth.verifyPhoneNumber("+16505553434") }
        let sent = try await auth.verifyClient(appToken: "apns-token", tokenType: "sandbox")
        let push = try XCTUnwrap(pushes.last)
        XCTAssertEqual([push.appToken, push.tokenType], ["apns-token", "sandbox"])
        let payload = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(push.payloadJSON.utf8)) as? [String: [String: String]])
        let receipt = try XCTUnwrap(payload["phoneauth"]?["receipt"])
        XCTAssertEqual(receipt, sent.receipt)
        XCTAssertNotNil(payload["phoneauth"]?["secret"])
        // A wrong secret spends the receipt; the next push's receipt and secret work.
        await assertThrows(.invalidAppCredential) {
            _ = try await auth.verifyPhoneNumber(
                testNumber, appVerification: .pushReceipt(receipt: receipt, secret: "wrong"))
        }
        let sent2 = try await auth.verifyClient(appToken: "apns-token")
        let payload2 = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try XCTUnwrap(pushes.last).payloadJSON.utf8))
                as? [String: [String: String]])
        _ = try await auth.verifyPhoneNumber(
            testNumber,
            appVerification: .pushReceipt(
                receipt: sent2.receipt,
                secret: try XCTUnwrap(payload2["phoneauth"]?["secret"])))
        auth.setCaptchaVerifier { token, _ in (token == "human", 0.9) }
        await assertThrows(.captchaCheckFailed) {
            _ = try await auth.verifyPhoneNumber(secondNumber, appVerification: .captchaToken("bot"))
        }
        let verification = try await auth.verifyPhoneNumber(secondNumber, appVerification: .captchaToken("human"))
        XCTAssertEqual(verification.codeLength, 6)
    }

    func testACaptchaVerifierIsGivenTheNumberToRateAndItsRiskIsJudged() async throws {
        let auth = try PhoneAuth(
            json: """
                {"database": "\(try scratchDirectory())/auth.db", "sms": {"provider": "console"},
                 "pumping": {"tollFraud": {"phoneEnforcementState": "ENFORCE", "useSmsTollFraudProtection": true,
                                           "tollFraudManagedRules": [{"startScore": 0.8, "action": "BLOCK"}]}}}
                """)
        defer { auth.close() }
        let asked = HookEvents()
        auth.setCaptchaVerifier { (check: CaptchaCheck) in
            asked.put(check.phoneNumber ?? "-")
            return CaptchaAnswer(success: true, score: 0.9, tollFraudRisk: check.token == "risky" ? 0.9 : 0.1)
        }
        let (fine, risky) = ("+16505550142", "+16505550143")
        _ = try await auth.verifyPhoneNumber(fine, appVerification: .captchaToken("fine"))
        await assertThrows(.captchaCheckFailed) {
            _ = try await auth.verifyPhoneNumber(risky, appVerification: .captchaToken("risky"))
        }
        XCTAssertEqual(asked.all, [fine, risky])
    }

    func testABeforeSendSmsHookSeesTheEventAndCanRefuse() async throws {
        let auth = try open()
        let seen = HookEvents()
        auth.setHook(.beforeSendSms) { event in
            seen.put(event)
            return event.contains(#""phone_number":"+16505551234""#)
                ? "{}" : #"{"error": {"status": "PERMISSION_DENIED", "message": "Not invited."}}"#
        }
        _ = try await auth.verifyPhoneNumber(testNumber)
        let event = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try XCTUnwrap(seen.last).utf8)) as? [String: Any])
        XCTAssertEqual(event["event_type"] as? String, "beforeSendSms")
        XCTAssertEqual(event["sms_type"] as? String, "SIGN_IN_OR_SIGN_UP")
        do {
            _ = try await auth.verifyPhoneNumber(secondNumber)
            XCTFail("the hook refused it")
        } catch {
            XCTAssertEqual(error.code, .blockingFunctionError)
            XCTAssertEqual(error.message, "Not invited.")
        }
        auth.setHook(.beforeSendSms) { _ in nil }  // a failure: denied by default
        await assertThrows(.blockingFunctionError) { _ = try await auth.verifyPhoneNumber(testNumber) }
        auth.setHook(.beforeSendSms, nil)
        _ = try await auth.verifyPhoneNumber(secondNumber)
    }

    func testBeforeSignInShapesTheSessionAndEveryChangeIsAnEvent() async throws {
        let database = try scratchDirectory() + "/auth.db"
        let auth = try PhoneAuth(
            json: #"{"database": "\#(database)", "testPhoneNumbers": {"\#(testNumber)": "123456"}, "events": {}}"#)
        addTeardownBlock { auth.close() }
        auth.setHook(.beforeSignIn) { _ in
            #"{"userRecord": {"updateMask": "customClaims,sessionClaims", "customClaims": {"role": "staff"}, "#
                + #""sessionClaims": {"kiosk": true}}}"#
        }
        let signedIn = try await signIn(auth, testNumber, "123456")
        let claims = try await auth.verifyIDToken(signedIn.idToken).claimsJSON
        XCTAssertTrue(claims.contains(#""kiosk":true"#) && claims.contains(#""role":"staff""#), claims)
        let stored = try await auth.user(uid: signedIn.user.uid).customClaimsJSON
        XCTAssertEqual(stored, #"{"role":"staff"}"#, "session claims are not stored")

        let backlog = try await auth.eventBacklog()
        XCTAssertEqual(backlog.count, 2)
        let events = HookEvents()
        try auth.setRecordedEventHandler { event in
            events.put(event)
            return true
        }
        for _ in 0..<1000 where events.count < 2 { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertEqual(events.all.map { $0.contains(#""type":"userCreated""#) }, [true, false])
        XCTAssertTrue(try XCTUnwrap(events.all.last).contains(#""type":"userSignedIn""#))
        let status = try auth.status()
        XCTAssertEqual(status.eventsPending, 0)
    }

    func testAnEventHandlerNeedsEventsInTheConfiguration() async throws {
        let auth = try open()
        await assertThrows(.invalidArgument) { try auth.setRecordedEventHandler { _ in true } }
    }

    static func base32Decode(_ text: String) -> [UInt8]? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bits = 0, value = 0, bytes: [UInt8] = []
        for character in text where character != "=" {
            guard let index = alphabet.firstIndex(of: character) else { return nil }
            value = value << 5 | index
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8(value >> (bits - 8) & 0xFF))
                bits -= 8
            }
        }
        return bytes
    }
}

/// Events a hook got.
// @unchecked: its state is only touched under its lock (a test double).
final class HookEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [String] = []
    func put(_ event: String) { lock.withLock { events.append(event) } }
    var last: String? { lock.withLock { events.last } }
    var all: [String] { lock.withLock { events } }
    var count: Int { lock.withLock { events.count } }
}

/// Pushes the push sender got.
// @unchecked: its state is only touched under its lock (a test double).
final class PushInbox: @unchecked Sendable {
    private let lock = NSLock()
    private var pushes: [VerificationPush] = []

    func put(_ push: VerificationPush) { lock.withLock { pushes.append(push) } }
    var last: VerificationPush? { lock.withLock { pushes.last } }
}
