import XCTest
@testable import PhoneAuthCore

/// The pumping defense through the engine and its store: on by default, refusing a prefix whose
/// codes are not entered, keeping it open while they are, its modes, exemptions and records.
final class PumpingTests: XCTestCase {
    /// A number of the prefix +1 650 555 (the 10,000 numbers +1650555xxxx).
    private func number(_ i: Int, prefix: String = "+1650555") -> String {
        prefix + String(repeating: "0", count: 4 - String(i).count) + String(i)
    }

    private func makeEngine(
        _ dir: String = temporaryDirectory(), clock: ManualClock = ManualClock(),
        _ adjust: (inout EngineConfig) -> Void = { _ in }
    ) throws -> (Engine, CapturingSender) {
        let config = makeConfig(dir) {
            $0.pumping = PumpingPolicy()  // the default: TestSupport turns it off for the other tests
            $0.resendAfterSeconds = 0
            adjust(&$0)
        }
        let engine = try Engine(config: config, clock: clock)
        let sender = CapturingSender()
        engine.setSMSSender(sender)
        return (engine, sender)
    }

    private func decisions(_ engine: Engine, _ params: JSONValue = .object([])) -> [JSONValue] {
        let (status, result) = engine.call("listPumpingDecisions", params: params)
        XCTAssertEqual(status, 0, "\(result)")
        guard case let .array(items)? = result["decisions"] else { return [] }
        return items
    }

    func testByDefaultAPrefixWhoseCodesAreNotEnteredIsRefusedWithAPreciseErrorARecordAndAnEvent() throws {
        let dir = temporaryDirectory()
        let (engine, _) = try makeEngine(dir) { $0.events = EventSettings() }
        let events = EventCollector()
        engine.setEventSink(events)
        for i in 0..<5 { XCTAssertNoThrow(try engine.verification.verifyPhoneNumber(number(i))) }
        do {
            _ = try engine.verification.verifyPhoneNumber(number(5))
            XCTFail("not refused")
        } catch let error as PhoneAuthError {
            XCTAssertEqual(error.code, .quotaExceeded)
            XCTAssertEqual(error.detail("reason"), .string("suspectedPumping"))
            XCTAssertEqual(error.detail("scope"), .string("+1650555"))
            XCTAssertEqual(error.detail("scopeKind"), .string("prefix"))
            XCTAssertEqual(error.detail("retryAfterSeconds"), .int(900))
            XCTAssertFalse(error.message.contains(number(5)))
        }
        XCTAssertEqual(try rowCount(dir, "verifications"), 5, "a refused send writes no verification")
        // Another prefix of the same area is not refused.
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber(number(1, prefix: "+1650556")))
        let recorded = decisions(engine)
        XCTAssertEqual(recorded.count, 1)
        let decision = try XCTUnwrap(recorded.first)
        XCTAssertEqual(decision["action"], .string("refused"))
        XCTAssertEqual(decision["rule"], .string("hour"))
        XCTAssertEqual(decision["scope"], .string("+1650555"))
        XCTAssertEqual(decision["sent"], .int(5))
        XCTAssertEqual(decision["verified"], .int(0))
        XCTAssertEqual(decision["allowance"], .int(5))
        XCTAssertEqual(decision["region"], .string("US"))
        XCTAssertEqual(decision["channel"], .string("sms"))
        XCTAssertNil(decision["phoneNumber"], "its last digits and the prefix would make the number whole")
        let event = try XCTUnwrap(events.waitFor("pumpingSuspected"))
        XCTAssertEqual(event["scope"], .string("+1650555"))
        XCTAssertEqual(event["action"], .string("refused"))
        XCTAssertFalse(JSONCodec.serialize(event).contains(number(5)), "the number is masked in the event")
        // The durable event, recorded with the decision, under its scope.
        let (status, pending) = engine.call("listPendingEvents", params: .object([]))
        XCTAssertEqual(status, 0, "\(pending)")
        guard case let .array(waiting)? = pending["events"] else { return XCTFail("\(pending)") }
        XCTAssertEqual(waiting.map { $0["type"] }, [.string("pumpingSuspected")])
        XCTAssertEqual(waiting.first?["subject"], .string("pumping:+1650555"))
    }

    func testEnteredCodesRaiseWhatAPrefixMaySendAndAreCreditedOnce() throws {
        let (engine, sender) = try makeEngine()
        // 40 codes entered: the prefix may have 40 × 25 % + 2 √40 = 22 unverified codes (5 when cold).
        for i in 0..<40 { XCTAssertNoThrow(try signInBySMS(engine, sender, number(i))) }
        for i in 40..<62 { XCTAssertNoThrow(try engine.verification.verifyPhoneNumber(number(i)), "send \(i)") }
        assertError(.quotaExceeded, reason: "suspectedPumping") {
            _ = try engine.verification.verifyPhoneNumber(number(62))
        }
        XCTAssertEqual(decisions(engine).first?["verified"], .int(40))
        XCTAssertEqual(decisions(engine).first?["allowance"], .int(22))
    }

    func testANumberThatSignedInBeforeKeepsGettingCodesInABlockedPrefix() throws {
        let (engine, sender) = try makeEngine()
        _ = try signInBySMS(engine, sender, number(9999))
        for i in 0..<6 { _ = try? engine.verification.verifyPhoneNumber(number(i)) }
        XCTAssertFalse(decisions(engine).isEmpty, "the prefix is blocked")
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber(number(9999)))
        assertError(.quotaExceeded, reason: "suspectedPumping") {
            _ = try engine.verification.verifyPhoneNumber(number(7))
        }
    }

    func testABlockEndsAndTheNextOneIsLongerWhileTheAttackGoesOn() throws {
        let clock = ManualClock()
        let (engine, _) = try makeEngine(clock: clock)
        for i in 0..<5 { _ = try engine.verification.verifyPhoneNumber(number(i)) }
        assertError(.quotaExceeded, reason: "suspectedPumping") {
            _ = try engine.verification.verifyPhoneNumber(number(5))
        }
        clock.advance(seconds: 901)
        // Still five unverified codes in the last hour: blocked again, twice as long.
        do {
            _ = try engine.verification.verifyPhoneNumber(number(6))
            XCTFail("not refused")
        } catch let error as PhoneAuthError {
            XCTAssertEqual(error.detail("retryAfterSeconds"), .int(1800))
        }
        // Once the hour and the day have passed with nothing sent, the prefix is open again.
        clock.advance(seconds: 2 * 86_400)
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber(number(7)))
    }

    func testRecordModeRefusesNothingAndRecordsWhatItWouldHaveRefused() throws {
        let clock = ManualClock()
        let (engine, _) = try makeEngine(clock: clock) { $0.pumping.mode = .record }
        let events = EventCollector()
        engine.setEventSink(events)
        for i in 0..<8 {
            XCTAssertNoThrow(try engine.verification.verifyPhoneNumber(number(i)))
            clock.advance(seconds: 1)  // the decisions' order is their time's
        }
        let recorded = decisions(engine)
        XCTAssertEqual(recorded.count, 3)
        XCTAssertTrue(recorded.allSatisfy { $0["action"] == .string("flagged") })
        XCTAssertEqual(recorded.last?["rule"], .string("hour"), "the first flagged send tripped the hour's rule")
        XCTAssertEqual(recorded.first?["rule"], .string("blocked"))
        XCTAssertNotNil(events.waitFor("pumpingSuspected") { $0["action"] == .string("flagged") })
    }

    func testOffJudgesAndCountsNothing() throws {
        let dir = temporaryDirectory()
        let (engine, _) = try makeEngine(dir) { $0.pumping.mode = .off }
        for i in 0..<20 { XCTAssertNoThrow(try engine.verification.verifyPhoneNumber(number(i))) }
        XCTAssertEqual(try rowCount(dir, "pumping_scopes"), 0)
        XCTAssertTrue(decisions(engine).isEmpty)
    }

    func testAllowedPrefixesAndNetworksAndTestNumbersAreNotJudged() throws {
        let dir = temporaryDirectory()
        let (engine, _) = try makeEngine(dir) {
            $0.pumping.allowPrefixes = ["+1650555"]
            $0.pumping.allowNetworks = [IPNetwork("203.0.113.0/24")!]
            $0.testPhoneNumbers = ["+16505550000": "123456"]
        }
        for i in 0..<12 { XCTAssertNoThrow(try engine.verification.verifyPhoneNumber(number(i))) }
        for i in 0..<12 {
            XCTAssertNoThrow(
                try engine.verification.verifyPhoneNumber(number(i, prefix: "+1650556"), clientIp: "203.0.113.9"))
        }
        XCTAssertEqual(try rowCount(dir, "pumping_scopes"), 0)
        // Not allowed: judged.
        for i in 0..<5 { _ = try engine.verification.verifyPhoneNumber(number(i, prefix: "+1650557")) }
        assertError(.quotaExceeded, reason: "suspectedPumping") {
            _ = try engine.verification.verifyPhoneNumber(number(5, prefix: "+1650557"))
        }
    }

    func testATenantSetsItsOwnModeAndAllowListsOverTheEngines() throws {
        let (engine, _) = try makeEngine()
        func tenant(_ id: String, _ pumping: JSONValue) throws -> TenantID {
            let (status, result) = engine.call(
                "createTenant",
                params: .object([("tenantId", .string(id)), ("displayName", .string("Shop")), ("pumping", pumping)]))
            XCTAssertEqual(status, 0, "\(result)")
            return try TenantID(id)
        }
        let recording = try tenant("recording", .object([("mode", .string("record"))]))
        let allowing = try tenant("allowing", .object([("allowPrefixes", .array([.string("+1650557")]))]))
        // The engine enforces; the recording tenant's sends go ahead and are flagged.
        for i in 0..<7 {
            XCTAssertNoThrow(try engine.verification.verifyPhoneNumber(number(i), tenant: recording))
        }
        XCTAssertEqual(Set(decisions(engine).map { $0["action"]?.stringValue }), ["flagged"])
        // Its prefix is blocked for everyone else: the scope is one for every tenant.
        assertError(.quotaExceeded, reason: "suspectedPumping") {
            _ = try engine.verification.verifyPhoneNumber(number(8))
        }
        // The allowing tenant's own prefix is neither judged nor counted; the engine's pool's is.
        for i in 0..<12 {
            XCTAssertNoThrow(
                try engine.verification.verifyPhoneNumber(number(i, prefix: "+1650557"), tenant: allowing))
        }
        for i in 0..<5 { _ = try engine.verification.verifyPhoneNumber(number(20 + i, prefix: "+1650557")) }
        assertError(.quotaExceeded, reason: "suspectedPumping") {
            _ = try engine.verification.verifyPhoneNumber(number(30, prefix: "+1650557"))
        }
        // Shown as set, and checked as the engine's settings are.
        let shown = engine.call("getTenant", params: .object([("tenantId", .string("allowing"))])).result["tenant"]
        XCTAssertEqual(shown?["pumping"]?["allowPrefixes"], .array([.string("+1650557")]))
        XCTAssertEqual(shown?["pumping"]?["mode"], .null)
        let (status, refused) = engine.call(
            "updateTenant",
            params: .object([
                ("tenantId", .string("allowing")),
                ("pumping", .object([("allowNetworks", .array([.string("10.0.0.0/33")]))])),
            ]))
        XCTAssertEqual(status, PhoneAuthError.Code.invalidArgument.status, "\(refused)")
        XCTAssertEqual(refused["error"]?["details"]?["field"], .string("pumping.allowNetworks"))
    }

    func testANetworkWhoseCodesAreNotEnteredIsRefused() throws {
        let (engine, _) = try makeEngine()
        // Ten numbers in ten prefixes, from ten addresses of one /24.
        for i in 0..<10 {
            XCTAssertNoThrow(
                try engine.verification.verifyPhoneNumber(
                    number(i, prefix: "+165055\(i)"), clientIp: ClientAddress("198.51.100.\(i + 1)")))
        }
        do {
            _ = try engine.verification.verifyPhoneNumber("+14155550100", clientIp: "198.51.100.200")
            XCTFail("not refused")
        } catch let error as PhoneAuthError {
            XCTAssertEqual(error.code, .tooManyRequests)
            XCTAssertEqual(error.detail("scopeKind"), .string("network"))
            XCTAssertEqual(error.detail("scope"), .string("198.51.100.0/24"))
        }
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber("+14155550100", clientIp: "198.51.101.1"))
    }

    func testTwoEnginesOnOneDatabaseDecideAlike() throws {
        let dir = temporaryDirectory()
        let clock = ManualClock()
        let (first, _) = try makeEngine(dir, clock: clock)
        let (second, _) = try makeEngine(dir, clock: clock)
        for i in 0..<5 { _ = try (i % 2 == 0 ? first : second).verification.verifyPhoneNumber(number(i)) }
        assertError(.quotaExceeded, reason: "suspectedPumping") {
            _ = try second.verification.verifyPhoneNumber(number(5))
        }
        assertError(.quotaExceeded, reason: "suspectedPumping") {
            _ = try first.verification.verifyPhoneNumber(number(6))
        }
        XCTAssertEqual(decisions(first).count, 2)
    }

    /// On PostgreSQL an entered code is credited once the sign-in has committed, in a transaction
    /// of its own: the sign-in neither waits on nor conflicts over its country's row, which every
    /// send and sign-in of the country updates. Shown by holding that row locked meanwhile.
    func testOnPostgreSQLASignInCommitsBeforeItsCodeIsCredited() throws {
        try XCTSkipUnless(testingPostgres, "SQLite runs one writer at a time")
        let dir = temporaryDirectory()
        let (engine, sender) = try makeEngine(dir)
        let started = try engine.verification.verifyPhoneNumber(number(1))
        let message = try XCTUnwrap(sender.waitForMessage(to: number(1)))
        let holder = try readingConnection(dir)
        defer { holder.close() }
        try holder.execute("BEGIN")
        XCTAssertEqual(
            try holder.run("UPDATE pumping_scopes SET strikes = strikes WHERE scope = ?", [.text("c:US")]), 1)
        let signedIn = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        Thread.detachNewThread {
            outcome.set(
                Result {
                    try engine.signIn.signIn(
                        with: PhoneCredential(
                            verificationId: started.verificationId, verificationCode: code(in: message.body)))
                })
            signedIn.signal()
        }
        // The user is there while the country's row is still locked: the sign-in committed first.
        let deadline = Date().addingTimeInterval(30)
        while try rowCount(dir, "users") != 1, Date() < deadline { usleep(10_000) }
        XCTAssertEqual(try rowCount(dir, "users"), 1, "the sign-in waited on its country's row")
        try holder.execute("COMMIT")
        XCTAssertEqual(signedIn.wait(timeout: .now() + 30), .success)
        XCTAssertNoThrow(try XCTUnwrap(outcome.value).get())
        let us = engine.call("getPumpingStatistics", params: .object([])).result["countries"]?.arrayValue?.first
        XCTAssertEqual(us?["verifiedLastHour"], .int(1), "credited once the lock was let go")
    }

    func testDecisionsComeAPageAtATimeNewestFirst() throws {
        let (engine, _) = try makeEngine()
        for i in 0..<8 { _ = try? engine.verification.verifyPhoneNumber(number(i)) }
        let all = decisions(engine)
        XCTAssertEqual(all.count, 3)
        let (_, first) = engine.call("listPumpingDecisions", params: .object([("maxResults", .int(2))]))
        guard case let .array(page)? = first["decisions"], let token = first["pageToken"] else {
            return XCTFail("\(first)")
        }
        XCTAssertEqual(page, Array(all.prefix(2)))
        XCTAssertEqual(decisions(engine, .object([("maxResults", .int(2)), ("pageToken", token)])), [all[2]])
        let (status, bad) = engine.call("listPumpingDecisions", params: .object([("pageToken", .string("x"))]))
        XCTAssertNotEqual(status, 0)
        XCTAssertEqual(bad["error"]?["code"], .string("invalidArgument"))
    }

    func testStatisticsCountCodesSentAndEnteredPerCountry() throws {
        let (engine, sender) = try makeEngine { $0.testPhoneNumbers = ["+16505559999": "123456"] }
        for i in 0..<3 { _ = try signInBySMS(engine, sender, number(i)) }
        for i in 3..<5 { _ = try engine.verification.verifyPhoneNumber(number(i)) }
        _ = try engine.verification.verifyPhoneNumber("+4915112345678")
        let (status, result) = engine.call("getPumpingStatistics", params: .object([]))
        XCTAssertEqual(status, 0, "\(result)")
        guard case let .array(countries)? = result["countries"] else { return XCTFail("\(result)") }
        XCTAssertEqual(countries.map { $0["region"] }, [.string("DE"), .string("US")])
        let us = try XCTUnwrap(countries.last)
        XCTAssertEqual(us["sentLastHour"], .int(5))
        XCTAssertEqual(us["verifiedLastHour"], .int(3))
        XCTAssertEqual(us["sentLastDay"], .int(5))
        XCTAssertEqual(us["verifiedLastDay"], .int(3))
        XCTAssertNil(us["blockedUntil"])
        // Per region and channel, from the verifications (a test number's sends nothing); none
        // delivered, as a callback sender gives no receipts (Tests/server/test_console_sections.py
        // has one delivered).
        _ = try engine.verification.verifyPhoneNumber("+16505559999")
        guard case let .array(channels)? = engine.call("getPumpingStatistics", params: .object([])).result["channels"]
        else { return XCTFail("no channels") }
        XCTAssertEqual(
            channels.map {
                [
                    $0["region"], $0["channel"], $0["sentLastHour"], $0["verifiedLastHour"], $0["sentLastDay"],
                    $0["deliveredLastDay"],
                ]
            },
            [
                [.string("DE"), .string("sms"), .int(1), .int(0), .int(1), .int(0)],
                [.string("US"), .string("sms"), .int(5), .int(3), .int(5), .int(0)],
            ])
    }

    func testTheSettingsAreCheckedAndNamedInErrors() throws {
        func refusal(_ pumping: String) -> String? {
            do {
                _ = try EngineConfig.read(try JSONCodec.parse("{\"database\": \"x.db\", \"pumping\": \(pumping)}"))
                return nil
            } catch let error as PhoneAuthError { return error.detail("key")?.stringValue } catch { return "\(error)" }
        }
        XCTAssertEqual(refusal("{\"mode\": \"audit\"}"), "pumping.mode")
        XCTAssertEqual(refusal("{\"allowPrefixes\": [\"44\"]}"), "pumping.allowPrefixes")
        XCTAssertEqual(refusal("{\"allowNetworks\": [\"10.0.0.0/40\"]}"), "pumping.allowNetworks")
        XCTAssertEqual(refusal("{\"hourFloors\": {\"prefix\": 0}}"), "pumping.hourFloors.prefix")
        XCTAssertEqual(refusal("{\"blockSeconds\": 600, \"maxBlockSeconds\": 60}"), "pumping.maxBlockSeconds")
        XCTAssertEqual(refusal("{\"unknown\": 1}"), "pumping.unknown")
        XCTAssertNil(refusal("{\"mode\": \"record\", \"allowNetworks\": [\"2001:db8::/32\"]}"))
        XCTAssertEqual(try EngineConfig.read(try JSONCodec.parse("{\"database\": \"x.db\"}")).pumping.mode, .enforce)
    }
}

/// A sign-in's result, set on the thread that made it.
private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<SignInResult, Error>?

    func set(_ result: Result<SignInResult, Error>) { lock.withLock { self.result = result } }
    var value: Result<SignInResult, Error>? { lock.withLock { result } }
}
