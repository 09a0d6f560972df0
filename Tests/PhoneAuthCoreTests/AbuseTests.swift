import XCTest
@testable import PhoneAuthCore

final class AbuseTests: XCTestCase {
    private let number = "+16505553434"
    /// An hour boundary, so fixed windows start with the test and the estimates are exact.
    private func clockAtWindowStart() -> ManualClock {
        ManualClock(Timestamp(seconds: 1_800_000_000 - 1_800_000_000 % 86_400))
    }

    private func makeEngines(
        _ clock: ManualClock, count: Int = 1, _ adjust: (inout EngineConfig) -> Void = { _ in }
    ) throws -> [Engine] {
        let config = makeConfig(temporaryDirectory()) {
            $0.resendAfterSeconds = 0
            $0.testPhoneNumbers = ["+16505551234": "123456"]
            adjust(&$0)
        }
        return try (0..<count).map { _ in try Engine(config: config, clock: clock) }
    }

    private func limitName(_ body: () throws -> Void) -> String? {
        do { try body() } catch let error as PhoneAuthError {
            return error.details.first(where: { $0.0 == "limit" || $0.0 == "reason" && error.details.count == 2 })?.1
                .stringValue
        } catch { return nil }
        return nil
    }

    func testPerNumberLimitHoldsAcrossEnginesAndSlidesWithTheHour() throws {
        let clock = clockAtWindowStart()
        let engines = try makeEngines(clock, count: 2)
        for i in 0..<5 {
            XCTAssertNoThrow(try engines[i % 2].verification.verifyPhoneNumber(number))
            clock.advance(seconds: 600)
        }
        assertError(.tooManyRequests, reason: "rateLimit") { _ = try engines[1].verification.verifyPhoneNumber(number) }
        // The first send was 50 minutes ago: it leaves the window in 10 minutes, not before.
        clock.advance(seconds: 599)
        assertError(.tooManyRequests) { _ = try engines[0].verification.verifyPhoneNumber(number) }
        clock.advance(seconds: 1)
        XCTAssertNoThrow(try engines[0].verification.verifyPhoneNumber(number))
        XCTAssertNoThrow(
            try engines[0].verification.verifyPhoneNumber("+16505553435"), "other numbers are not affected")
    }

    func testPerIpProjectAndRegionLimitsTripAtTheirThresholdAndReset() throws {
        let clock = clockAtWindowStart()
        let engine = try makeEngines(clock) {
            $0.abuse.smsPerIpPerHour = 3
            $0.abuse.smsPerProjectPerDay = 7
            $0.abuse.smsPerRegionPerDay = ["GB": 1]
        }[0]
        for i in 0..<3 {
            XCTAssertNoThrow(try engine.verification.verifyPhoneNumber("+1650555340\(i)", clientIp: "192.0.2.1"))
        }
        XCTAssertEqual(
            limitName { _ = try engine.verification.verifyPhoneNumber("+16505553409", clientIp: "192.0.2.1") },
            "smsPerIpPerHour")
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber("+16505553403", clientIp: "2001:db8::1"))
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber("+442070313000"))
        XCTAssertEqual(
            limitName { _ = try engine.verification.verifyPhoneNumber("+442070313001") }, "smsPerRegionPerDay")
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber("+16505553404"))
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber("+16505551234"), "test numbers are exempt")
        // An hour on, the three sends of the previous window count fully, then fade: one is let
        // through once a third of them has (by the estimate) left the sliding hour.
        clock.advance(seconds: 3600 + 1199)
        XCTAssertEqual(
            limitName { _ = try engine.verification.verifyPhoneNumber("+16505553406", clientIp: "192.0.2.1") },
            "smsPerIpPerHour")
        clock.advance(seconds: 1)
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber("+16505553406", clientIp: "192.0.2.1"))
        // That was the project's seventh SMS of the day.
        assertError(.quotaExceeded, reason: "rateLimit") {
            _ = try engine.verification.verifyPhoneNumber("+16505553405")
        }
        // Two days on, the daily estimates have no events left.
        clock.advance(seconds: 2 * 86_400)
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber("+442070313001"))
    }

    func testRegionBurstBreakerOpensAndReportsIt() throws {
        let clock = clockAtWindowStart()
        let engine = try makeEngines(clock) { $0.abuse.regionBurstPerHour = 2 }[0]
        let sink = EventCollector()
        engine.setEventSink(sink)
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber("+16505553401"))
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber("+16505553402"))
        assertError(.quotaExceeded) { _ = try engine.verification.verifyPhoneNumber("+16505553403") }
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber("+442070313000"), "other regions still get codes")
        let tripped = sink.events.filter { $0["event"] == .string("limitTripped") }
        XCTAssertEqual(tripped.first?["limit"], .string("regionBurstPerHour"))
        XCTAssertEqual(tripped.first?["scope"], .string("US"))
        // Half an hour into the next window half of the last hour's sends still count.
        clock.advance(seconds: 3600 + 1800)
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber("+16505553404"))
        assertError(.quotaExceeded) { _ = try engine.verification.verifyPhoneNumber("+16505553405") }
    }

    func testConsecutiveWrongCodesLockTheNumberUntilTheLockoutEnds() throws {
        let clock = clockAtWindowStart()
        let engines = try makeEngines(clock, count: 2) {
            $0.abuse.maxConsecutiveFailures = 7
            $0.abuse.smsPerNumberPerHour = 0
        }
        let sink = EventCollector()
        engines[0].setEventSink(sink)
        var wrong = 0
        while wrong < 6 {
            let started = try engines[wrong % 2].verification.verifyPhoneNumber(number)
            for _ in 0..<min(3, 6 - wrong) {
                assertError(.invalidVerificationCode) {
                    _ = try engines[wrong % 2].signIn.signIn(
                        with: PhoneCredential(verificationId: started.verificationId, verificationCode: "000000"))
                }
                wrong += 1
            }
        }
        let last = try engines[0].verification.verifyPhoneNumber(number)
        assertError(.tooManyRequests, reason: "numberLocked") {
            _ = try engines[0].signIn.signIn(
                with: PhoneCredential(verificationId: last.verificationId, verificationCode: "000000"))
        }
        assertError(.tooManyRequests, reason: "numberLocked") {
            _ = try engines[0].verification.verifyPhoneNumber(number)
        }
        XCTAssertEqual(sink.events.last?["limit"], .string("maxConsecutiveFailures"), "a refused send is reported")
        assertError(.tooManyRequests, reason: "numberLocked") {
            _ = try engines[1].verification.verifyPhoneNumber(number)
        }
        XCTAssertEqual(sink.events.filter { $0["event"] == .string("lockout") }.count, 1)
        assertError(.invalidVerificationID) {
            _ = try engines[0].signIn.signIn(with: PhoneCredential(verificationId: "forged", verificationCode: "1"))
        }
        XCTAssertEqual(sink.events.last?["reason"], .string("malformed"), "guessed IDs are reported too")
        XCTAssertEqual(sink.events.first { $0["event"] == .string("lockout") }?["phoneNumber"], .string("+*******3434"))
        clock.advance(seconds: 3600)
        let fresh = try engines[1].verification.verifyPhoneNumber(number)
        XCTAssertNoThrow(
            try engines[1].signIn.signIn(
                with: PhoneCredential(
                    verificationId: fresh.verificationId, verificationCode: try code(of: engines[1], fresh))))
    }

    func testRetryAfterIsExactlyWhenTheNextSendFits() throws {
        let clock = clockAtWindowStart()
        let engine = try makeEngines(clock) { $0.abuse.smsPerIpPerHour = 3 }[0]
        for i in 0..<3 {
            XCTAssertNoThrow(try engine.verification.verifyPhoneNumber("+1650555340\(i)", clientIp: "192.0.2.1"))
        }
        clock.advance(seconds: 3600 + 7)
        var wait: Int64 = 0
        do { _ = try engine.verification.verifyPhoneNumber("+16505553409", clientIp: "192.0.2.1") } catch let error
            as PhoneAuthError
        {
            wait = error.details.first(where: { $0.0 == "retryAfterSeconds" })?.1.intValue ?? 0
        }
        XCTAssertEqual(wait, 1200 - 7)
        clock.advance(seconds: wait - 1)
        assertError(.tooManyRequests) {
            _ = try engine.verification.verifyPhoneNumber("+16505553409", clientIp: "192.0.2.1")
        }
        clock.advance(seconds: 1)
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber("+16505553409", clientIp: "192.0.2.1"))
    }

    func testALockedNumberGetsNothingNotEvenItsCurrentVerification() throws {
        let clock = clockAtWindowStart()
        let engine = try makeEngines(clock) {
            $0.abuse.maxConsecutiveFailures = 2
            $0.resendAfterSeconds = 60
        }[0]
        let started = try engine.verification.verifyPhoneNumber(number)
        assertError(.invalidVerificationCode) {
            _ = try engine.signIn.signIn(
                with: PhoneCredential(verificationId: started.verificationId, verificationCode: "000000"))
        }
        assertError(.tooManyRequests, reason: "numberLocked") {
            _ = try engine.signIn.signIn(
                with: PhoneCredential(verificationId: started.verificationId, verificationCode: "000000"))
        }
        assertError(.tooManyRequests, reason: "numberLocked") { _ = try engine.verification.verifyPhoneNumber(number) }
    }

    func testARightCodeResetsTheFailureCount() throws {
        let clock = clockAtWindowStart()
        let engine = try makeEngines(clock) {
            $0.abuse.maxConsecutiveFailures = 3
            $0.abuse.smsPerNumberPerHour = 0
        }[0]
        for _ in 0..<3 {
            let started = try engine.verification.verifyPhoneNumber(number)
            for _ in 0..<2 {
                assertError(.invalidVerificationCode) {
                    _ = try engine.signIn.signIn(
                        with: PhoneCredential(verificationId: started.verificationId, verificationCode: "000000"))
                }
            }
            XCTAssertNoThrow(
                try engine.signIn.signIn(
                    with: PhoneCredential(
                        verificationId: started.verificationId, verificationCode: try code(of: engine, started))))
        }
    }

    func testWrongCodesPerIpAreLimitedBeforeTheCodeIsCompared() throws {
        let clock = clockAtWindowStart()
        let engine = try makeEngines(clock) {
            $0.abuse.wrongCodesPerIpPer5Minutes = 2
            $0.maxAttempts = 10
            $0.codeTtlSeconds = 3600
        }[0]
        let started = try engine.verification.verifyPhoneNumber(number)
        let guess = PhoneCredential(verificationId: started.verificationId, verificationCode: "000000")
        for _ in 0..<2 {
            assertError(.invalidVerificationCode) { _ = try engine.signIn.signIn(with: guess, clientIp: "192.0.2.7") }
        }
        let right = PhoneCredential(
            verificationId: started.verificationId, verificationCode: try code(of: engine, started))
        assertError(.tooManyRequests, reason: "rateLimit") {
            _ = try engine.signIn.signIn(with: right, clientIp: "192.0.2.7")
        }
        clock.advance(seconds: 600)
        XCTAssertNoThrow(try engine.signIn.signIn(with: right, clientIp: "192.0.2.7"))
    }

    func testAddressesAreCountedAsOneClientHoldsThem() throws {
        XCTAssertEqual(try ClientAddress("192.0.2.1", field: "clientIp").limitKey, "192.0.2.1")
        XCTAssertEqual(
            try ClientAddress("::ffff:192.0.2.1", field: "clientIp").limitKey, "192.0.2.1",
            "IPv4-mapped is the IPv4 address")
        XCTAssertEqual(try ClientAddress("2001:db8:1:2:aaaa::1", field: "clientIp").limitKey, "2001:db8:1:2::/64")
        XCTAssertEqual(
            try ClientAddress("2001:DB8:1:2:bbbb::9", field: "clientIp").limitKey, "2001:db8:1:2::/64",
            "one /64 is one client")
        assertError(.invalidArgument) { _ = try ClientAddress("192.0.2", field: "clientIp") }
        assertError(.invalidArgument) { _ = try ClientAddress("example.com", field: "clientIp") }
        let engine = try makeEngines(clockAtWindowStart()) { $0.abuse.smsPerIpPerHour = 1 }[0]
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber("+16505553401", clientIp: "::ffff:192.0.2.1"))
        XCTAssertEqual(
            limitName { _ = try engine.verification.verifyPhoneNumber("+16505553402", clientIp: "192.0.2.1") },
            "smsPerIpPerHour")
    }

    func testPolicyConfigurationIsCheckedWhenTheEngineOpens() throws {
        func read(_ json: String) throws -> EngineConfig { try EngineConfig.read(try JSONCodec.parse(json)) }
        XCTAssertEqual(
            try read(#"{"database": "x", "smsRegionPolicy": {"allowlistOnly": {"allowedRegions": ["US", "GB"]}}}"#)
                .abuse.regionPolicy,
            .allowlistOnly(allowed: ["US", "GB"]))
        do {
            _ = try read(
                #"{"database": "x", "smsRegionPolicy": {"allowByDefault": {"disallowedRegions": ["DE", "XX", "usa"]}}}"#
            )
            XCTFail("unknown regions accepted")
        } catch let error as PhoneAuthError {
            XCTAssertEqual(error.code, .invalidConfiguration)
            XCTAssertTrue(
                error.message.contains("'XX'") && error.message.contains("'usa'") && !error.message.contains("'DE'"),
                error.message)
        }
        assertError(.invalidConfiguration) {
            _ = try read(
                #"{"database": "x", "smsRegionPolicy": {"allowByDefault": {"disallowedRegions": []}, "#
                    + #""allowlistOnly": {"allowedRegions": []}}}"#
            )
        }
        assertError(.invalidConfiguration) {
            _ = try read(#"{"database": "x", "phoneNumberTypes": {"deny": ["PREMIUM"]}}"#)
        }
        assertError(.invalidConfiguration) {
            _ = try read(#"{"database": "x", "smsRegionPolicy": {"allowlistOnly": {"allowedRegions": []}}}"#)
        }
        assertError(.invalidConfiguration) {
            _ = try read(#"{"database": "x", "quotas": {"smsPerNumberPerHour": -1}}"#)
        }
        XCTAssertEqual(
            try read(#"{"database": "x", "phoneNumberTypes": {"deny": ["VOIP"]}}"#).abuse.deniedTypes, [.voip])
    }

    /// The code of a verification, read back from its queued SMS (no sender is installed).
    private func code(of engine: Engine, _ started: VerificationStarted) throws -> String {
        let sender = CapturingSender()
        engine.setSMSSender(sender)
        defer { engine.setSMSSender(nil) }
        if let message = sender.waitForMessage(verificationId: started.verificationId) {
            return PhoneAuthCoreTests.code(in: message.body)
        }
        throw PhoneAuthError(.internalError, "no SMS for the verification")
    }
}
