import XCTest
@testable import PhoneAuthCore

/// A number's run of wrong codes: bounded for good (NIST SP 800-63B counts consecutive failures,
/// and time passing does not restart the count), lockouts that double, and the admin's unlock.
final class LockoutTests: XCTestCase {
    private let number = "+16505553434"

    private func engine(
        _ clock: ManualClock, sender: CapturingSender, _ adjust: (inout EngineConfig) -> Void = { _ in }
    ) throws -> Engine {
        let engine = try Engine(
            config: makeConfig(temporaryDirectory()) {
                $0.resendAfterSeconds = 0; adjust(&$0)
            }, clock: clock)
        engine.setSMSSender(sender)
        return engine
    }

    /// The code sent for `started`, once its SMS has arrived.
    private func sentCode(_ sender: CapturingSender, _ started: VerificationStarted) throws -> String {
        if let sent = sender.waitForMessage(verificationId: started.verificationId) { return code(in: sent.body) }
        throw PhoneAuthError(.internalError, "no SMS for the verification")
    }

    /// A code that is certainly not the one sent for `started`.
    private func wrongCode(_ sender: CapturingSender, _ started: VerificationStarted) throws -> String {
        let wrong = String(((Int(try sentCode(sender, started)) ?? 0) + 1) % 1_000_000)
        return String(repeating: "0", count: 6 - wrong.count) + wrong
    }

    private func reason(_ error: PhoneAuthError) -> String? { error.details.first { $0.0 == "reason" }?.1.stringValue }
    private func retryAfter(_ error: PhoneAuthError) -> Int64 {
        error.details.first { $0.0 == "retryAfterSeconds" }?.1.intValue ?? 1
    }

    /// The greedy attacker of the issue: a new client address for every call, every SMS the
    /// limits allow, every guess each verification allows, for a simulated year, under the
    /// default configuration.
    func testAGreedyAttackerComparesAtMost250WrongCodesInAYear() throws {
        let clock = ManualClock(Timestamp(seconds: 1_800_000_000))
        let sender = CapturingSender()
        let engine = try self.engine(clock, sender: sender)
        let events = EventCollector()
        engine.setEventSink(events)
        let end = clock.now().adding(seconds: 365 * 86_400)
        var address = 0
        func nextIp() -> String {
            address += 1
            return "198.51.\(address / 250 % 250).\(address % 250 + 1)"
        }
        var wrongCodes = 0
        while clock.now() < end {
            let started: VerificationStarted
            do {
                started = try engine.verification.verifyPhoneNumber(number, clientIp: try ClientAddress(nextIp()))
            } catch let error as PhoneAuthError where error.code == .tooManyRequests || error.code == .quotaExceeded {
                clock.advance(seconds: retryAfter(error))
                continue
            }
            let guess = try wrongCode(sender, started)
            guesses: for _ in 0..<engine.config.maxAttempts {
                do {
                    let credential = PhoneCredential(verificationId: started.verificationId, verificationCode: guess)
                    _ = try engine.signIn.signIn(with: credential, clientIp: try ClientAddress(nextIp()))
                    XCTFail("a wrong code signed in")
                } catch let error as PhoneAuthError {
                    switch (error.code, reason(error)) {
                    case (.invalidVerificationCode, _): wrongCodes += 1
                    case (.tooManyRequests, "numberLocked"):
                        clock.advance(seconds: retryAfter(error))
                        break guesses
                    default: break guesses
                    }
                }
            }
        }
        let lockouts = events.events.filter { $0["event"] == .string("lockout") }
        // The guess that locks the number was compared too.
        let compared = wrongCodes + lockouts.count
        XCTAssertLessThanOrEqual(compared, 250, "wrong codes compared in a simulated year")
        XCTAssertGreaterThan(compared, 100, "the attacker did get its first 100")
        // Lockouts doubled from an hour up to the 30-day cap.
        let lengths = lockouts.compactMap { $0["lockoutSeconds"]?.intValue }
        XCTAssertEqual(Array(lengths.prefix(3)), [3600, 7200, 14_400])
        XCTAssertEqual(lengths.max(), 30 * 86_400)
        print("simulated year: \(compared) wrong codes compared, \(lockouts.count) lockouts")
    }

    func testTheRunOutlivesItsLockoutsAndTimeAndEachLockoutDoubles() throws {
        let clock = ManualClock(Timestamp(seconds: 1_800_000_000))
        let sender = CapturingSender()
        let engine = try self.engine(clock, sender: sender) {
            $0.abuse.maxConsecutiveFailures = 4
            $0.maxAttempts = 2
            $0.abuse.lockoutSeconds = 60
            $0.abuse.maxLockoutSeconds = 200
            $0.abuse.smsPerNumberPerHour = 0
        }
        let events = EventCollector()
        engine.setEventSink(events)
        /// Wrong codes until the number locks; how many were refused as wrong first.
        func wrongUntilLocked() throws -> Int {
            var wrong = 0
            while true {
                let started = try engine.verification.verifyPhoneNumber(number)
                let guess = try wrongCode(sender, started)
                for _ in 0..<2 {
                    do {
                        _ = try engine.signIn.signIn(
                            with: PhoneCredential(verificationId: started.verificationId, verificationCode: guess))
                    } catch let error as PhoneAuthError where error.code == .invalidVerificationCode {
                        wrong += 1
                    } catch let error as PhoneAuthError where reason(error) == "numberLocked" {
                        return wrong
                    }
                }
            }
        }
        XCTAssertEqual(try wrongUntilLocked(), 3)  // the 4th locks
        clock.advance(seconds: 60)
        XCTAssertEqual(try wrongUntilLocked(), 1)  // then every 2nd
        clock.advance(seconds: 120)
        // A month and more of quiet does not restart the count.
        clock.advance(seconds: 40 * 86_400)
        XCTAssertEqual(try wrongUntilLocked(), 1)
        let lengths = events.events.filter { $0["event"] == .string("lockout") }.compactMap {
            $0["lockoutSeconds"]?.intValue
        }
        XCTAssertEqual(lengths, [60, 120, 200])
        // A right code ends the run: the next lock needs 4 wrong codes again.
        clock.advance(seconds: 200)
        let started = try engine.verification.verifyPhoneNumber(number)
        XCTAssertNoThrow(
            try engine.signIn.signIn(
                with: PhoneCredential(
                    verificationId: started.verificationId, verificationCode: sentCode(sender, started))))
        XCTAssertEqual(try wrongUntilLocked(), 3)
        XCTAssertEqual(events.events.filter { $0["event"] == .string("lockout") }.last?["lockoutSeconds"], .int(60))
    }

    func testUnlockingEndsTheLockoutAndTheRun() throws {
        let clock = ManualClock(Timestamp(seconds: 1_800_000_000))
        let sender = CapturingSender()
        let engine = try self.engine(clock, sender: sender) {
            $0.abuse.maxConsecutiveFailures = 2; $0.abuse.smsPerNumberPerHour = 0
        }
        let events = EventCollector()
        engine.setEventSink(events)
        let started = try engine.verification.verifyPhoneNumber(number)
        let guess = try wrongCode(sender, started)
        assertError(.invalidVerificationCode) {
            _ = try engine.signIn.signIn(
                with: PhoneCredential(verificationId: started.verificationId, verificationCode: guess))
        }
        assertError(.tooManyRequests, reason: "numberLocked") {
            _ = try engine.signIn.signIn(
                with: PhoneCredential(verificationId: started.verificationId, verificationCode: guess))
        }
        assertError(.tooManyRequests, reason: "numberLocked") { _ = try engine.verification.verifyPhoneNumber(number) }
        XCTAssertTrue(try engine.lockouts.unlockPhoneNumber("+1 650-555-3434"))
        XCTAssertFalse(try engine.lockouts.unlockPhoneNumber(number))
        // Not the last event: the delivery thread tells of the SMS sent whenever it has recorded it.
        let unlocked = events.events.filter { $0["event"] == .string("numberUnlocked") }
        XCTAssertEqual(unlocked.map { $0["hadFailures"] }, [.bool(true), .bool(false)])
        XCTAssertEqual(unlocked.last?["phoneNumber"], .string("+*******3434"))
        // Unlocked, and the run starts afresh: one wrong code does not lock again.
        let again = try engine.verification.verifyPhoneNumber(number)
        let wrong = try wrongCode(sender, again)
        assertError(.invalidVerificationCode) {
            _ = try engine.signIn.signIn(
                with: PhoneCredential(verificationId: again.verificationId, verificationCode: wrong))
        }
        XCTAssertNoThrow(
            try engine.signIn.signIn(
                with: PhoneCredential(verificationId: again.verificationId, verificationCode: sentCode(sender, again))))
        assertError(.missingPhoneNumber) { _ = try engine.lockouts.unlockPhoneNumber(nil) }
        assertError(.invalidPhoneNumber) { _ = try engine.lockouts.unlockPhoneNumber("not a number") }
    }

    func testLockoutLengthsNeverOverflow() {
        let year: Int64 = 31_536_000_000
        let limits = CheckLimits(
            maxConsecutiveFailures: 100, failuresBetweenLockouts: 5, lockoutMilliseconds: year,
            maxLockoutMilliseconds: year, clientIp: nil, wrongCodesPerIpPer5Minutes: 0, exempt: [])
        for lockouts in [1, 2, 30, 41, 1000] { XCTAssertEqual(limits.lockoutLength(lockouts), year, "\(lockouts)") }
    }
}
