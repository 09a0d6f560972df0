import Glibc
import XCTest
@testable import PhoneAuthCore

final class DeliveryTests: XCTestCase {
    let phone = "+16505553434"

    func testFailedDeliveriesAreRetriedThenGivenUp() throws {
        let sender = CapturingSender()
        sender.failuresBeforeSuccess = 2
        let engine = try Engine(config: makeConfig(temporaryDirectory()) { $0.smsRetryBackoffMs = 20 })
        let events = EventCollector()
        engine.setEventSink(events)
        engine.setSMSSender(sender)
        let id = try engine.verification.verifyPhoneNumber(phone).verificationId
        // Told once the outcome is in the store.
        XCTAssertNotNil(events.waitFor("codeSent", phone: phone))
        let status = try engine.verification.verificationStatus(id)
        XCTAssertEqual(status.delivery, "sent")
        XCTAssertEqual(status.attempts, 3)
        XCTAssertEqual(sender.calls, 3)

        let failing = CapturingSender()
        failing.failuresBeforeSuccess = 100
        let engine2 = try Engine(
            config: makeConfig(temporaryDirectory()) {
                $0.smsRetryBackoffMs = 10; $0.smsMaxAttempts = 2
            })
        let events2 = EventCollector()
        engine2.setEventSink(events2)
        engine2.setSMSSender(failing)
        let id2 = try engine2.verification.verifyPhoneNumber(phone).verificationId
        XCTAssertNotNil(events2.waitFor("deliveryFailed", phone: phone) { $0["willRetry"] == .bool(false) })
        XCTAssertEqual(try engine2.verification.verificationStatus(id2).delivery, "failed")
        XCTAssertEqual(failing.calls, 2)
    }

    func testMessagesWaitForASender() throws {
        let dir = temporaryDirectory()
        let engine = try Engine(config: makeConfig(dir))
        let id = try engine.verification.verifyPhoneNumber(phone).verificationId
        // With no sender the engine hands its queue back to the store, where the message waits.
        XCTAssertTrue(try eventually { try storedDelivery(dir, id) == "pending" })
        XCTAssertEqual(try engine.verification.verificationStatus(id).delivery, "pending")
        let sender = CapturingSender()
        engine.setSMSSender(sender)
        XCTAssertNotNil(sender.waitForMessage(to: phone))
    }

    func testMessagesQueuedAtCloseGoOutFromTheNextEngine() throws {
        let dir = temporaryDirectory()
        // The clock stands still, so the lease the first engine wrote never runs out: the message
        // can only go because the close handed it back.
        let clock = ManualClock()
        var engine = try Engine(config: makeConfig(dir), clock: clock)
        let id = try engine.verification.verifyPhoneNumber(phone).verificationId
        engine.close()
        engine = try Engine(config: makeConfig(dir), clock: clock)
        let sender = CapturingSender()
        engine.setSMSSender(sender)
        XCTAssertEqual(sender.waitForMessage(to: phone)?.verificationId, id)
    }

    func testTestNumbersSendNothing() throws {
        let sender = CapturingSender()
        let engine = try Engine(config: makeConfig(temporaryDirectory()) { $0.testPhoneNumbers = [phone: "123456"] })
        engine.setSMSSender(sender)
        let id = try engine.verification.verifyPhoneNumber(phone).verificationId
        XCTAssertEqual(try engine.verification.verificationStatus(id).delivery, "none")
        // A real number's SMS, queued after: anything queued for the test number would go first.
        let marker = "+16505553435"
        _ = try engine.verification.verifyPhoneNumber(marker)
        XCTAssertNotNil(sender.waitForMessage(to: marker))
        XCTAssertEqual(sender.all.map(\.to), [marker])
        XCTAssertEqual(sender.calls, 1)
    }

    func testLanguageChoosesTemplateWithCodeOnce() throws {
        let text = try SMSText.builtIn()
        XCTAssertEqual(text.resolve("fr-CA", fallback: "en"), "fr")
        XCTAssertEqual(text.resolve("zh-Hant", fallback: "en"), "zh-TW")
        XCTAssertEqual(text.resolve("zh", fallback: "en"), "zh-CN")
        XCTAssertEqual(text.resolve("pt_BR", fallback: "en"), "pt")
        XCTAssertEqual(text.resolve("xx", fallback: "de"), "de")
        var bodies = Set<String>()
        for language in ["en", "fr", "de", "es", "pt", "ru", "zh-TW", "zh-CN", "id", "ja"] {
            XCTAssertEqual(text.resolve(language, fallback: ""), language)
            let body = text.body(language: language, code: "482915", minutes: 5)
            XCTAssertEqual(body.ranges(of: "482915").count, 1, body)
            bodies.insert(body)
        }
        XCTAssertEqual(bodies.count, 10)
    }
}

final class RetentionTests: XCTestCase {
    func testExpiredVerificationsArePurgedAfterADay() throws {
        let dir = temporaryDirectory()
        let store = try Database(makeConfig(dir)).open()
        let now = Timestamp(seconds: 1_800_000_000)
        for (i, expires) in [now.adding(seconds: -90_000), now.adding(seconds: 300)].enumerated() {
            _ = try store.startVerification(
                NewVerification(
                    id: VerificationCode.newVerificationId(at: expires.adding(seconds: -300)), phone: "+1650555123\(i)",
                    codeHash: [1],
                    createdAt: expires.adding(seconds: -300), expiresAt: expires, outbox: nil, tenant: .defaultPool, channel: .sms,
                    channelAsked: false),
                reuseIfCreatedAfter: now, lease: DeliveryLease(owner: "test", until: now), limits: nil)
        }
        try store.purge(
            verificationsExpiredBefore: now.adding(seconds: -86_400), sessionsEndedBefore: now,
            codesMadeSince: now.adding(seconds: -86_400), codesExpiredBefore: now)
        store.close()
        XCTAssertEqual(try rowCount(dir, "verifications"), 1)
    }

    func testEndedSessionsArePurged() throws {
        let dir = temporaryDirectory()
        let clock = ManualClock()
        let engine = try Engine(config: makeConfig(dir), clock: clock)
        let ended = try engine.signIn.signIn(
            withCustomToken: try engine.signIn.createCustomToken(uid: "a", claims: nil))
        let live = try engine.signIn.signIn(withCustomToken: try engine.signIn.createCustomToken(uid: "a", claims: nil))
        try engine.sessions.signOut(refreshToken: ended.refreshToken)
        engine.close()
        let store = try Database(makeConfig(dir)).open()
        try store.purge(
            verificationsExpiredBefore: clock.now(), sessionsEndedBefore: clock.now().adding(seconds: 1),
            codesMadeSince: Timestamp(milliseconds: 0), codesExpiredBefore: clock.now())
        store.close()
        let reopened = try Engine(config: makeConfig(dir), clock: clock)
        assertError(.invalidUserToken, reason: "unknown") {
            _ = try reopened.sessions.refreshIdToken(ended.refreshToken)
        }
        XCTAssertNoThrow(try reopened.sessions.refreshIdToken(live.refreshToken))
    }
}
