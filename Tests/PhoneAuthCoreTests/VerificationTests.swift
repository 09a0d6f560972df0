import Glibc
import XCTest
@testable import PhoneAuthCore

final class VerificationTests: XCTestCase {
    let phone = "+16505553434"

    func testCodesAreUniformDigitsOfTheConfiguredLength() {
        var counts = [Int](repeating: 0, count: 10)
        for _ in 0..<2000 {
            let code = VerificationCode.generate(length: 8)
            XCTAssertEqual(code.count, 8)
            for c in code.utf8 { counts[Int(c - 48)] += 1 }
        }
        // 16,000 digits: each expected 1,600; a biased generator falls far outside this band.
        for count in counts { XCTAssertTrue((1300...1900).contains(count), "digit counts \(counts)") }
    }

    func testVerificationIdsAreLongRandomAndUrlSafe() {
        let now = SystemClock().now()
        let ids = (0..<1000).map { _ in VerificationCode.newVerificationId(at: now) }
        XCTAssertEqual(Set(ids).count, 1000)
        XCTAssertEqual(Set(ids.map { $0.prefix(12) }).count, 1, "the prefix is the time")
        for id in ids {
            XCTAssertEqual(Base64URL.decode(id.dropFirst(12))?.count, 18)  // 144 random bits
            XCTAssertTrue(id.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            XCTAssertTrue(VerificationCode.isWellFormedId(id))
        }
        XCTAssertLessThan(
            VerificationCode.newVerificationId(at: now),
            VerificationCode.newVerificationId(at: now.adding(milliseconds: 1)))
    }

    func testCodeIsStoredOnlyAsKeyedHash() throws {
        let dir = temporaryDirectory()
        let sender = CapturingSender()
        let engine = try Engine(config: makeConfig(dir) { $0.codeLength = 10 })
        engine.setSMSSender(sender)
        _ = try engine.verification.verifyPhoneNumber(phone)
        let code = code(in: try XCTUnwrap(sender.waitForMessage(to: phone)).body)
        engine.close()
        let bytes = try storedBytes(dir)
        XCTAssertGreaterThan(bytes.count, 100)
        XCTAssertFalse(contains(bytes, Array(code.utf8)), "the code is in the database in clear")
    }

    func testWrongCodesCountAndKillTheVerification() throws {
        let clock = ManualClock()
        let engine = try Engine(
            config: makeConfig(temporaryDirectory()) {
                $0.testPhoneNumbers = [phone: "123456"]; $0.maxAttempts = 3
            }, clock: clock)
        let id = try engine.verification.verifyPhoneNumber(phone).verificationId
        assertError(.invalidVerificationCode) {
            _ = try engine.signIn.signIn(with: PhoneCredential(verificationId: id, verificationCode: "000000"))
        }
        assertError(.invalidVerificationCode) {
            _ = try engine.signIn.signIn(with: PhoneCredential(verificationId: id, verificationCode: "000001"))
        }
        assertError(.invalidVerificationCode) {
            _ = try engine.signIn.signIn(with: PhoneCredential(verificationId: id, verificationCode: "000002"))
        }
        assertError(.sessionExpired, reason: "tooManyAttempts") {
            _ = try engine.signIn.signIn(with: PhoneCredential(verificationId: id, verificationCode: "123456"))
        }
    }

    func testDeadVerificationBlocksNewCodesUntilTheWindowEnds() throws {
        let clock = ManualClock()
        let engine = try Engine(
            config: makeConfig(temporaryDirectory()) {
                $0.testPhoneNumbers = [phone: "123456"]; $0.maxAttempts = 1
            }, clock: clock)
        let id = try engine.verification.verifyPhoneNumber(phone).verificationId
        assertError(.invalidVerificationCode) {
            _ = try engine.signIn.signIn(with: PhoneCredential(verificationId: id, verificationCode: "000000"))
        }
        assertError(.tooManyRequests, reason: "tooManyAttempts") {
            _ = try engine.verification.verifyPhoneNumber(phone)
        }
        clock.advance(seconds: 61)
        let fresh = try engine.verification.verifyPhoneNumber(phone).verificationId
        XCTAssertNoThrow(
            try engine.signIn.signIn(with: PhoneCredential(verificationId: fresh, verificationCode: "123456")))
    }

    func testCodesExpire() throws {
        let clock = ManualClock()
        let engine = try Engine(
            config: makeConfig(temporaryDirectory()) { $0.testPhoneNumbers = [phone: "123456"] }, clock: clock)
        let id = try engine.verification.verifyPhoneNumber(phone).verificationId
        clock.advance(seconds: 301)
        assertError(.sessionExpired, reason: "expired") {
            _ = try engine.signIn.signIn(with: PhoneCredential(verificationId: id, verificationCode: "123456"))
        }
    }

    func testCodesAreSingleUse() throws {
        // With retries off; SignInRetryTests has a used code presented again soon after.
        let engine = try Engine(
            config: makeConfig(temporaryDirectory()) {
                $0.testPhoneNumbers = [phone: "123456"]; $0.signInRetrySeconds = 0
            })
        let credential = PhoneCredential(
            verificationId: try engine.verification.verifyPhoneNumber(phone).verificationId, verificationCode: "123456")
        XCTAssertTrue(try engine.signIn.signIn(with: credential).isNewUser)
        assertError(.sessionExpired, reason: "alreadyUsed") { _ = try engine.signIn.signIn(with: credential) }
    }

    /// Retries off: one redemption succeeds. On (the default): every one gets the one session.
    func testConcurrentRedemptionOpensOneSession() throws {
        for retrySeconds: Int64 in [0, 30] {
            let engine = try Engine(
                config: makeConfig(temporaryDirectory()) {
                    $0.testPhoneNumbers = [phone: "123456"]; $0.signInRetrySeconds = retrySeconds
                })
            for _ in 0..<20 {
                let credential = PhoneCredential(
                    verificationId: try engine.verification.verifyPhoneNumber(phone).verificationId,
                    verificationCode: "123456")
                let successes = Lock()
                var tokens: [String] = []
                DispatchQueueLike.concurrentPerform(iterations: 4) { _ in
                    if let result = try? engine.signIn.signIn(with: credential) {
                        successes.withLock { tokens.append(result.refreshToken) }
                    }
                }
                XCTAssertEqual(tokens.count, retrySeconds == 0 ? 1 : 4)
                XCTAssertEqual(Set(tokens).count, 1, "one session")
            }
        }
    }

    func testZeroResendWindowAlwaysStartsAnew() throws {
        let engine = try Engine(
            config: makeConfig(temporaryDirectory()) {
                $0.resendAfterSeconds = 0; $0.testPhoneNumbers = [phone: "123456"]
            },
            clock: ManualClock())
        let ids = try (0..<5).map { _ in try engine.verification.verifyPhoneNumber(phone).verificationId }
        XCTAssertEqual(Set(ids).count, 5)
        // Only the newest stays usable; each earlier one was replaced by its successor.
        XCTAssertEqual(
            try ids.map { try engine.verification.verificationStatus($0).state },
            [.replaced, .replaced, .replaced, .replaced, .active])
    }

    func testResendWindowReusesThenReplaces() throws {
        let clock = ManualClock()
        let sender = CapturingSender()
        let engine = try Engine(config: makeConfig(temporaryDirectory()), clock: clock)
        engine.setSMSSender(sender)
        let first = try engine.verification.verifyPhoneNumber(phone)
        let again = try engine.verification.verifyPhoneNumber("+1 650-555-3434")
        XCTAssertEqual(first.verificationId, again.verificationId)
        let firstMessage = try XCTUnwrap(sender.waitForMessage(to: phone))
        // Another number's SMS, queued after: a second SMS for the reused verification would go first.
        let marker = "+16505553435"
        _ = try engine.verification.verifyPhoneNumber(marker)
        XCTAssertNotNil(sender.waitForMessage(to: marker))
        XCTAssertEqual(sender.all.map(\.to), [phone, marker], "a reused verification must not send a second SMS")
        clock.advance(seconds: 61)
        let replacement = try engine.verification.verifyPhoneNumber(phone)
        XCTAssertNotEqual(replacement.verificationId, first.verificationId)
        assertError(.sessionExpired, reason: "replaced") {
            _ = try engine.signIn.signIn(
                with: PhoneCredential(
                    verificationId: first.verificationId, verificationCode: code(in: firstMessage.body)))
        }
    }

    func testClientIpMustBeAnAddress() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()) { $0.testPhoneNumbers = [phone: "123456"] })
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber(phone, clientIp: "203.0.113.7"))
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber(phone, clientIp: "2001:db8::1"))
        assertError(.invalidArgument) {
            _ = try engine.verification.verifyPhoneNumber(
                phone, clientIp: ClientAddress("not-an-ip", field: "clientIp"))
        }
    }

    func testUnknownAndMalformedIds() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        assertError(.invalidVerificationID, reason: "malformed") {
            _ = try engine.signIn.signIn(with: PhoneCredential(verificationId: "abc", verificationCode: "123456"))
        }
        assertError(.invalidVerificationID, reason: "unknown") {
            _ = try engine.signIn.signIn(
                with: PhoneCredential(
                    verificationId: VerificationCode.newVerificationId(at: SystemClock().now()),
                    verificationCode: "123456"))
        }
    }

    func testVerificationSurvivesRestart() throws {
        let dir = temporaryDirectory()
        let sender = CapturingSender()
        var engine = try Engine(config: makeConfig(dir))
        engine.setSMSSender(sender)
        let id = try engine.verification.verifyPhoneNumber(phone).verificationId
        let code = code(in: try XCTUnwrap(sender.waitForMessage(to: phone)).body)
        engine.close()
        engine = try Engine(config: makeConfig(dir))
        XCTAssertTrue(
            try engine.signIn.signIn(with: PhoneCredential(verificationId: id, verificationCode: code)).isNewUser)
    }

    func testDisabledAppVerificationAcceptsOnlyTestNumbers() throws {
        let engine = try Engine(
            config: makeConfig(temporaryDirectory()) {
                $0.testPhoneNumbers = ["+16505551234": "654321"]
                $0.appVerificationDisabledForTesting = true
            })
        assertError(.appNotVerified) { _ = try engine.verification.verifyPhoneNumber(phone) }
        let id = try engine.verification.verifyPhoneNumber("+16505551234").verificationId
        XCTAssertNotNil(
            try engine.signIn.signIn(with: PhoneCredential(verificationId: id, verificationCode: "654321")).idToken)
    }
}

/// concurrentPerform without Dispatch: one pthread per iteration.
enum DispatchQueueLike {
    static func concurrentPerform(iterations: Int, _ body: @escaping (Int) -> Void) {
        final class Box {
            let body: (Int) -> Void; let i: Int; init(_ b: @escaping (Int) -> Void, _ i: Int) { body = b; self.i = i }
        }
        var threads: [pthread_t] = []
        for i in 0..<iterations {
            var t = pthread_t()
            let box = Unmanaged.passRetained(Box(body, i)).toOpaque()
            pthread_create(
                &t, nil,
                { raw in
                    let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                    box.body(box.i)
                    return nil
                }, box)
            threads.append(t)
        }
        for t in threads { pthread_join(t, nil) }
    }
}
