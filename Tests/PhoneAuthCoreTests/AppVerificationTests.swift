import XCTest
@testable import PhoneAuthCore

final class AppVerificationTests: XCTestCase {
    private let number = "+16505553434"

    /// Pushes land here, as on a device.
    // @unchecked: its state is only touched under its lock (a test double).
    final class Device: PushSender, @unchecked Sendable {
        private let lock = Lock()
        private var pushes: [JSONValue] = []
        var accept = true
        func send(appToken: String, tokenType: String, payload: JSONValue) -> Bool {
            lock.withLock { pushes.append(payload) }
            return accept
        }
        var last: JSONValue? { lock.withLock { pushes.last } }
    }

    // @unchecked: the engine calls it on the test's own thread (verifyPhoneNumber), one call at a time.
    final class Verifier: CaptchaVerifier, @unchecked Sendable {
        var verdict: CaptchaVerdict? = CaptchaVerdict(success: true, score: 0.9)
        private(set) var tokens: [String] = []
        func verify(token: String, clientIp: String?, phoneNumber: String?) -> CaptchaVerdict? {
            tokens.append(token)
            return verdict
        }
    }

    private func makeEngine(
        _ clock: Clock = SystemClock(), dir: String = temporaryDirectory(),
        _ adjust: (inout EngineConfig) -> Void = { _ in }
    ) throws -> Engine {
        try Engine(
            config: makeConfig(dir) {
                $0.resendAfterSeconds = 0
                $0.captchaPageUrl = "https://auth.example.com/captcha"
                $0.testPhoneNumbers = ["+16505551234": "123456"]
                adjust(&$0)
            }, clock: clock)
    }

    /// verifyClient, then the push as the device's notification handler sees it.
    private func receiptAndSecret(_ engine: Engine, _ device: Device) throws -> (String, String) {
        let (receipt, timeout) = try engine.appVerification.verifyClient(appToken: "device-token", tokenType: "sandbox")
        XCTAssertEqual(timeout, 5)
        let found = AppVerificationService.canHandleNotification(try XCTUnwrap(device.last))
        XCTAssertTrue(found.handled)
        XCTAssertEqual(found.receipt, receipt)
        return (receipt, try XCTUnwrap(found.secret))
    }

    func testThePushPathSendsTheSMS() throws {
        let engine = try makeEngine()
        let device = Device(), sms = CapturingSender()
        engine.appVerification.setPushSender(device)
        engine.setSMSSender(sms)
        assertError(.missingAppCredential) { _ = try engine.verification.verifyPhoneNumber(number) }
        let (receipt, secret) = try receiptAndSecret(engine, device)
        let started = try engine.verification.verifyPhoneNumber(
            number, appProof: .receipt(receipt: receipt, secret: secret))
        XCTAssertEqual(sms.waitForMessage(to: number)?.verificationId, started.verificationId)
        assertError(.invalidAppCredential, reason: "alreadyUsed") {
            _ = try engine.verification.verifyPhoneNumber(number, appProof: .receipt(receipt: receipt, secret: secret))
        }
        // The payload also arrives as JSON text under the key.
        let text = AppVerificationService.canHandleNotification(
            .object([("phoneauth", .string(JSONCodec.serialize(try XCTUnwrap(device.last?["phoneauth"]))))]))
        XCTAssertEqual(text.receipt, receipt)
    }

    func testWrongExpiredAndForeignSecretsAreRefused() throws {
        let clock = ManualClock()
        let engine = try makeEngine(clock)
        let other = try makeEngine(clock)
        let device = Device()
        engine.appVerification.setPushSender(device)
        other.appVerification.setPushSender(device)
        let (receipt, _) = try receiptAndSecret(engine, device)
        assertError(.invalidAppCredential, reason: "wrongSecret") {
            _ = try engine.verification.verifyPhoneNumber(number, appProof: .receipt(receipt: receipt, secret: "guess"))
        }
        let (second, secret) = try receiptAndSecret(engine, device)
        assertError(.invalidAppCredential, reason: "alreadyUsed") {
            _ = try engine.verification.verifyPhoneNumber(number, appProof: .receipt(receipt: receipt, secret: "guess"))
        }
        clock.advance(seconds: 301)
        assertError(.invalidAppCredential, reason: "expired") {
            _ = try engine.verification.verifyPhoneNumber(number, appProof: .receipt(receipt: second, secret: secret))
        }
        let (foreign, foreignSecret) = try receiptAndSecret(other, device)
        assertError(.invalidAppCredential, reason: "unknown") {
            _ = try engine.verification.verifyPhoneNumber(
                number, appProof: .receipt(receipt: foreign, secret: foreignSecret))
        }
    }

    func testWithoutThePushTheCaptchaPathSucceeds() throws {
        let engine = try makeEngine()
        let device = Device(), verifier = Verifier()
        device.accept = false
        engine.appVerification.setPushSender(device)
        engine.appVerification.setCaptchaVerifier(verifier)
        assertError(.appNotVerified, reason: "pushFailed") {
            _ = try engine.appVerification.verifyClient(appToken: "device-token", tokenType: "prod")
        }
        if let leaked = device.last?["phoneauth"], let receipt = leaked["receipt"]?.stringValue,
            let secret = leaked["secret"]?.stringValue
        {
            assertError(.invalidAppCredential, reason: "alreadyUsed") {
                _ = try engine.verification.verifyPhoneNumber(
                    number, appProof: .receipt(receipt: receipt, secret: secret))
            }
        } else {
            XCTFail("the push was not handed to the sender")
        }
        let (url, eventId) = try engine.appVerification.captchaChallenge(
            callbackScheme: "com.example.app", languageCode: "fr-CA")
        XCTAssertEqual(url, "https://auth.example.com/captcha?eventId=\(eventId)&callbackScheme=com.example.app&hl=fr")
        let deepLink = "https://auth.example.com/captcha/done?eventId=\(eventId)&captchaToken=tok-123"
        let callback = "com.example.app://phoneauth/link?deep_link_id=" + PercentEncoding.encode(deepLink)
        XCTAssertFalse(
            try engine.appVerification.canHandleURL("com.other.app" + callback.dropFirst("com.example.app".count))
                .handled,
            "another scheme is not ours")
        let found = try engine.appVerification.canHandleURL(callback)
        XCTAssertTrue(found.handled)
        XCTAssertEqual(found.captchaToken, "tok-123")
        XCTAssertFalse(try engine.appVerification.canHandleURL(callback).handled, "an answer is used once")
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber(number, appProof: .captcha(token: "tok-123")))
        XCTAssertEqual(verifier.tokens, ["tok-123"])
        assertError(.captchaCheckFailed, reason: "alreadyUsed") {
            _ = try engine.verification.verifyPhoneNumber(number, appProof: .captcha(token: "tok-123"))
        }
        XCTAssertEqual(verifier.tokens, ["tok-123"], "a used token is refused without asking the verifier")
        verifier.verdict = CaptchaVerdict(success: true, score: .nan)
        assertError(.captchaCheckFailed, reason: "lowScore") {
            _ = try engine.verification.verifyPhoneNumber(number, appProof: .captcha(token: "nan"))
        }
        verifier.verdict = CaptchaVerdict(success: false, score: nil)
        assertError(.captchaCheckFailed, reason: "rejected") {
            _ = try engine.verification.verifyPhoneNumber(number, appProof: .captcha(token: "x1"))
        }
        verifier.verdict = CaptchaVerdict(success: true, score: 0.2)
        assertError(.captchaCheckFailed, reason: "lowScore") {
            _ = try engine.verification.verifyPhoneNumber(number, appProof: .captcha(token: "x2"))
        }
        verifier.verdict = nil
        assertError(.captchaCheckFailed, reason: "verifierFailed") {
            _ = try engine.verification.verifyPhoneNumber(number, appProof: .captcha(token: "x3"))
        }
    }

    func testMalformedNotificationsAndURLsAreNotHandled() throws {
        let engine = try makeEngine()
        for notification: JSONValue in [
            .object([]), .object([("phoneauth", .string("{not json"))]), .object([("phoneauth", .int(3))]),
            .object([("phoneauth", .object([("receipt", .string("r"))]))]), .array([]), .string("phoneauth"),
            .object([("aps", .object([("content-available", .int(1))]))]),
        ] {
            XCTAssertFalse(AppVerificationService.canHandleNotification(notification).handled, "\(notification)")
        }
        let probe = AppVerificationService.canHandleNotification(
            .object([("phoneauth", .object([("warning", .string("forwarding check"))]))]))
        XCTAssertTrue(probe.handled)
        XCTAssertNil(probe.receipt)
        let (_, eventId) = try engine.appVerification.captchaChallenge(callbackScheme: "app", languageCode: nil)
        let good = PercentEncoding.encode("https://x/y?eventId=\(eventId)&captchaToken=t")
        for url in [
            "", "app://", "app://phoneauth/link", "app://phoneauth/link?deep_link_id=%zz",
            "app://phoneauth/other?deep_link_id=\(good)",
            "app:/phoneauth/link?deep_link_id=\(good)", "app://phoneauth/link?deep_link_id=\(good)&extra=1",
            "app://phoneauth/link?deep_link_id=" + PercentEncoding.encode("https://x/y?eventId=\(eventId)"),
            "app://phoneauth/link?deep_link_id="
                + PercentEncoding.encode("https://x/y?eventId=\(eventId)&captchaToken=t&error=e"),
            "app://phoneauth/link?deep_link_id=" + PercentEncoding.encode("https://x/y?eventId=unknown&captchaToken=t"),
            "1app://phoneauth/link?deep_link_id=\(good)",
        ] {
            XCTAssertFalse(try engine.appVerification.canHandleURL(url).handled, url)
        }
        let error = try engine.appVerification.canHandleURL(
            "APP://phoneauth/link?deep_link_id="
                + PercentEncoding.encode("https://x/y?eventId=\(eventId)&error=cancelled"))
        XCTAssertTrue(error.handled)
        XCTAssertEqual(error.error, "cancelled")
    }

    func testRemovingAHookKeepsEnforcementOn() throws {
        let engine = try makeEngine()
        engine.appVerification.setCaptchaVerifier(Verifier())
        engine.appVerification.setCaptchaVerifier(nil)
        assertError(.missingAppCredential) { _ = try engine.verification.verifyPhoneNumber(number) }
    }

    func testReceiptsAndChallengesPerAddressAreLimited() throws {
        let engine = try makeEngine { $0.abuse.appChecksPerIpPerHour = 2 }
        engine.appVerification.setPushSender(Device())
        XCTAssertNoThrow(try engine.appVerification.verifyClient(appToken: "t", tokenType: nil, clientIp: "192.0.2.9"))
        XCTAssertNoThrow(
            try engine.appVerification.captchaChallenge(callbackScheme: "app", languageCode: nil, clientIp: "192.0.2.9")
        )
        assertError(.tooManyRequests, reason: "rateLimit") {
            _ = try engine.appVerification.verifyClient(appToken: "t", tokenType: nil, clientIp: "192.0.2.9")
        }
        XCTAssertNoThrow(try engine.appVerification.verifyClient(appToken: "t", tokenType: nil, clientIp: "192.0.2.10"))
    }

    func testEnforcementFollowsTheConfiguration() throws {
        let off = try makeEngine { $0.appVerificationEnforce = false }
        off.appVerification.setPushSender(Device())
        XCTAssertNoThrow(
            try off.verification.verifyPhoneNumber(number), "enforce: false needs no proof even with a push sender")
        let on = try makeEngine { $0.appVerificationEnforce = true }
        assertError(.missingAppCredential) { _ = try on.verification.verifyPhoneNumber(number) }
        assertError(.captchaCheckFailed, reason: "noVerifier") {
            _ = try on.verification.verifyPhoneNumber(number, appProof: .captcha(token: "t"))
        }
        let plain = try makeEngine()
        XCTAssertNoThrow(try plain.verification.verifyPhoneNumber(number), "nothing installed, nothing enforced")
        let testing = try makeEngine {
            $0.appVerificationDisabledForTesting = true; $0.appVerificationEnforce = true
        }
        XCTAssertNoThrow(
            try testing.verification.verifyPhoneNumber("+16505551234"),
            "disabledForTesting skips the proof for test numbers")
        assertError(.appNotVerified) { _ = try testing.verification.verifyPhoneNumber(number) }
        assertError(.missingAppToken) { _ = try on.appVerification.verifyClient(appToken: nil, tokenType: nil) }
        assertError(.operationNotAllowed, reason: "noPushSender") {
            _ = try on.appVerification.verifyClient(appToken: "t", tokenType: nil)
        }
        assertError(.invalidArgument) {
            _ = try on.appVerification.captchaChallenge(callbackScheme: "not a scheme", languageCode: nil)
        }
    }
}
