import Glibc
import XCTest
@testable import PhoneAuthCore

final class DeliveryTests: XCTestCase {
    let phone = "+16505553434"

    func testFailedDeliveriesAreRetriedThenGivenUp() throws {
        let sender = CapturingSender()
        sender.failuresBeforeSuccess = 2
        let engine = try Engine(config: makeConfig(temporaryDirectory()) { $0.smsRetryBackoffMs = 20 })
        engine.setSMSSender(sender)
        let id = try engine.verifyPhoneNumber(phone).verificationId
        XCTAssertNotNil(sender.waitForMessage(to: phone))
        usleep(100_000)
        let status = try engine.verificationStatus(id)
        XCTAssertEqual(status.delivery, "sent")
        XCTAssertEqual(status.attempts, 3)
        XCTAssertEqual(sender.calls, 3)

        let failing = CapturingSender()
        failing.failuresBeforeSuccess = 100
        let engine2 = try Engine(config: makeConfig(temporaryDirectory()) { $0.smsRetryBackoffMs = 10; $0.smsMaxAttempts = 2 })
        engine2.setSMSSender(failing)
        let id2 = try engine2.verifyPhoneNumber(phone).verificationId
        var delivery = ""
        for _ in 0..<100 where delivery != "failed" {
            usleep(20_000)
            delivery = try engine2.verificationStatus(id2).delivery
        }
        XCTAssertEqual(delivery, "failed")
        XCTAssertEqual(failing.calls, 2)
    }

    func testMessagesWaitForASender() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        let id = try engine.verifyPhoneNumber(phone).verificationId
        usleep(100_000)
        XCTAssertEqual(try engine.verificationStatus(id).delivery, "pending")
        let sender = CapturingSender()
        engine.setSMSSender(sender)
        XCTAssertNotNil(sender.waitForMessage(to: phone))
    }

    func testMessagesQueuedAtCloseGoOutFromTheNextEngine() throws {
        let dir = temporaryDirectory()
        var engine = try Engine(config: makeConfig(dir))
        let id = try engine.verifyPhoneNumber(phone).verificationId
        engine.close()
        engine = try Engine(config: makeConfig(dir))
        let sender = CapturingSender()
        engine.setSMSSender(sender)
        XCTAssertEqual(sender.waitForMessage(to: phone, timeoutMs: 3000)?.verificationId, id)
    }

    func testTestNumbersSendNothing() throws {
        let sender = CapturingSender()
        let engine = try Engine(config: makeConfig(temporaryDirectory()) { $0.testPhoneNumbers = [phone: "123456"] })
        engine.setSMSSender(sender)
        let id = try engine.verifyPhoneNumber(phone).verificationId
        usleep(200_000)
        XCTAssertEqual(sender.calls, 0)
        XCTAssertEqual(try engine.verificationStatus(id).delivery, "none")
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
            _ = try store.startVerification(NewVerification(id: VerificationCode.newVerificationId(at: expires.adding(seconds: -300)), phone: "+1650555123\(i)", codeHash: [1],
                                                            createdAt: expires.adding(seconds: -300), expiresAt: expires, outbox: nil),
                                            reuseIfCreatedAfter: now, lease: DeliveryLease(owner: "test", until: now), limits: nil)
        }
        try store.purge(verificationsExpiredBefore: now.adding(seconds: -86_400), sessionsEndedBefore: now)
        store.close()
        XCTAssertEqual(try rowCount(dir, "verifications"), 1)
    }

    func testEndedSessionsArePurged() throws {
        let dir = temporaryDirectory()
        let clock = ManualClock()
        let engine = try Engine(config: makeConfig(dir), clock: clock)
        let ended = try engine.signIn(withCustomToken: try engine.createCustomToken(uid: "a", claims: nil))
        let live = try engine.signIn(withCustomToken: try engine.createCustomToken(uid: "a", claims: nil))
        try engine.signOut(refreshToken: ended.refreshToken)
        engine.close()
        let store = try Database(makeConfig(dir)).open()
        try store.purge(verificationsExpiredBefore: clock.now(), sessionsEndedBefore: clock.now().adding(seconds: 1))
        store.close()
        let reopened = try Engine(config: makeConfig(dir), clock: clock)
        assertError(.invalidUserToken, reason: "unknown") { _ = try reopened.refreshIdToken(ended.refreshToken) }
        XCTAssertNoThrow(try reopened.refreshIdToken(live.refreshToken))
    }
}
