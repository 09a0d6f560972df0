import XCTest
@testable import PhoneAuthCore

/// The pumping defense's decisions, driven directly (no store): the rules, the blocks, the
/// exemptions and the modes.
final class PumpingJudgeTests: XCTestCase {
    private let start: Int64 = 1_800_000_000_000 - 1_800_000_000_000 % ScopeCounts.week
    private let prefix = PumpingScope(kind: .prefix, name: "+99890123")
    private let network = PumpingScope(kind: .network, name: "198.51.100.0/24")
    /// The default hourly floor of a prefix.
    private let floor = PumpingPolicy().hourFloors[.prefix]!

    /// Sends one code to `scopes` at `at` (ms after the start), the counts carried from call to call.
    private func send(
        _ scopes: [PumpingScope], _ counts: inout [ScopeCounts], at: Int64, policy: PumpingPolicy = PumpingPolicy(),
        known: Bool = false, risk: Double? = nil
    ) -> PumpingJudge.Verdict {
        let verdict = PumpingJudge(policy: policy, now: start + at).judge(scopes, counts, tollFraudRisk: risk) {
            known
        }
        counts = verdict.counts
        return verdict
    }

    func testAColdPrefixAllowsItsFloorOfUnverifiedCodesAnHourThenBlocksIt() {
        var counts = [ScopeCounts()]
        for i in 0..<floor { XCTAssertNil(send([prefix], &counts, at: Int64(i) * 1000).decision) }
        let refused = send([prefix], &counts, at: 10_000)
        XCTAssertFalse(refused.sends)
        XCTAssertEqual(refused.decision?.rule, .hour)
        XCTAssertEqual(
            refused.decision?.seen, PumpingJudge.Seen(sent: Int64(floor), verified: 0, allowance: Int64(floor)))
        XCTAssertEqual(refused.decision?.until, start + 10_000 + 900_000)
        XCTAssertEqual(counts[0].hour.sent, Int64(floor), "a refused send is not counted as sent")
        // Blocked now, whatever the counts say.
        XCTAssertEqual(send([prefix], &counts, at: 4000).decision?.rule, .blocked)
    }

    func testVerifiedCodesRaiseTheAllowance() {
        var counts = [ScopeCounts()]
        counts[0].hour = ScopeCounts.Window(start: start, sent: 60, verified: 60)
        counts[0].day = counts[0].hour
        counts[0].week = counts[0].hour
        // 60 codes entered: 60 × 25 % + 2 √60 = 30 unverified ones allowed, six times the cold floor.
        for i in 0..<30 { XCTAssertNil(send([prefix], &counts, at: Int64(i)).decision, "send \(i)") }
        XCTAssertEqual(send([prefix], &counts, at: 40).decision?.seen.allowance, 30)
    }

    func testTheFloorGivesWayToTheHistoryButNeverBelowHalf() {
        let judge = PumpingJudge(policy: PumpingPolicy(), now: start)
        XCTAssertEqual(judge.allowance(0, floor: 30), 30)
        XCTAssertEqual(judge.allowance(10, floor: 30), 20)
        XCTAssertEqual(judge.allowance(20, floor: 30), 15)
        XCTAssertEqual(judge.allowance(200, floor: 30), 50 + 28)
    }

    func testBlocksDoubleWhileTheAttackGoesOnUpToTheLongestAndStartOverAfterAQuietSpell() {
        var policy = PumpingPolicy()
        policy.maxBlockSeconds = 3000
        // An attack's first hour: 50 codes sent, none entered.
        var counts = [ScopeCounts()]
        counts[0].hour = ScopeCounts.Window(start: start, sent: 50)
        counts[0].day = counts[0].hour
        var at: Int64 = 10
        var lengths: [Int64] = []
        for _ in 0..<4 {
            guard let until = send([prefix], &counts, at: at, policy: policy).decision?.until else {
                return XCTFail("not refused")
            }
            lengths.append((until - at - start) / 1000)
            at = until - start + 1
        }
        XCTAssertEqual(lengths, [900, 1800, 3000, 3000])
        // Two quiet days, longer than the longest block: the next block is the first length again.
        at += 2 * ScopeCounts.day
        for i in 0..<floor { XCTAssertNil(send([prefix], &counts, at: at + Int64(i), policy: policy).decision) }
        XCTAssertEqual(send([prefix], &counts, at: at + 10, policy: policy).decision?.until, start + at + 10 + 900_000)
    }

    func testASlowAttackUnderTheHourlyFloorTripsTheDailyRule() {
        var counts = [ScopeCounts()]
        var decision: PumpingJudge.Verdict.Decision?
        var sent = 0
        // Two unverified codes an hour, under the hour's floor: the day allows 4 times the floor.
        for hour in 0..<24 where decision == nil {
            for i in 0..<2 where decision == nil {
                decision = send([prefix], &counts, at: Int64(hour) * 3_600_000 + Int64(i) * 1_200_000).decision
                if decision == nil { sent += 1 }
            }
        }
        XCTAssertEqual(decision?.rule, .day)
        XCTAssertEqual(sent, floor * PumpingPolicy.dayFloorHours)
    }

    func testANumberThatSignedInBeforeIsExemptAndCounted() {
        var counts = [ScopeCounts()]
        counts[0].blockedUntil = start + 1_000_000
        let verdict = send([prefix], &counts, at: 0, known: true)
        XCTAssertTrue(verdict.sends)
        XCTAssertNil(verdict.decision)
        XCTAssertEqual(counts[0].hour.sent, 1)
    }

    func testAKnownNetworkVouchesForADestinationButNotForItself() {
        var counts = [ScopeCounts(), ScopeCounts()]
        counts[0].blockedUntil = start + 1_000_000
        counts[1].week = ScopeCounts.Window(start: start, sent: 6, verified: 5)
        XCTAssertNil(send([prefix, network], &counts, at: 0).decision, "5 verified codes make the network known")
        // The network blocked itself: no vouching.
        counts[1].blockedUntil = start + 1_000_000
        XCTAssertEqual(send([prefix, network], &counts, at: 1).decision?.scope, prefix)
        counts[0].blockedUntil = 0
        XCTAssertEqual(send([prefix, network], &counts, at: 2).decision?.scope, network)
        // Off when knownNetworkVerified is 0.
        var policy = PumpingPolicy()
        policy.knownNetworkVerified = 0
        counts = [ScopeCounts(), ScopeCounts()]
        counts[0].blockedUntil = start + 1_000_000
        counts[1].week = ScopeCounts.Window(start: start, sent: 60, verified: 50)
        XCTAssertEqual(send([prefix, network], &counts, at: 3, policy: policy).decision?.scope, prefix)
    }

    func testRecordModeDecidesAndSends() {
        var policy = PumpingPolicy()
        policy.mode = .record
        var counts = [ScopeCounts()]
        for i in 0..<floor { _ = send([prefix], &counts, at: Int64(i), policy: policy) }
        let flagged = send([prefix], &counts, at: 10, policy: policy)
        XCTAssertTrue(flagged.sends)
        XCTAssertEqual(flagged.decision?.rule, .hour)
        XCTAssertEqual(counts[0].hour.sent, Int64(floor) + 1)
    }

    /// Toll fraud rules in `state` with one start score, 0.8.
    private func rating(_ state: TollFraudPolicy.EnforcementState, mode: PumpingPolicy.Mode = .enforce) -> PumpingPolicy
    {
        var policy = PumpingPolicy()
        policy.mode = mode
        policy.tollFraud = TollFraudPolicy(
            phoneEnforcementState: state, useSmsTollFraudProtection: true, startScores: [0.8])
        return policy
    }

    func testARatingAtOrAboveTheStartIsRefusedFirstAndNothingTheCountsKnowExemptsIt() {
        var counts = [ScopeCounts()]
        let refused = send([prefix], &counts, at: 0, policy: rating(.enforce), known: true, risk: 0.8)
        XCTAssertFalse(refused.sends)
        XCTAssertEqual(refused.decisions.map(\.rule), [.tollFraudRisk])
        XCTAssertEqual(refused.decision?.seen.startScore, 0.8)
        XCTAssertEqual(counts[0].hour.sent, 0, "a refused send is not counted")
        XCTAssertTrue(send([prefix], &counts, at: 1, policy: rating(.enforce), risk: 0.79).decisions.isEmpty)
        XCTAssertTrue(send([prefix], &counts, at: 2, policy: rating(.enforce)).decisions.isEmpty, "not rated")
        XCTAssertTrue(send([prefix], &counts, at: 3, policy: rating(.off), risk: 1).decisions.isEmpty)
    }

    func testAuditAndRecordModeFlagARatingAndTheCountsStillDecide() {
        for policy in [rating(.audit), rating(.enforce, mode: .record)] {
            var counts = [ScopeCounts()]
            for i in 0..<floor { _ = send([prefix], &counts, at: Int64(i), policy: policy) }
            let verdict = send([prefix], &counts, at: 10, policy: policy, risk: 0.9)
            XCTAssertEqual(verdict.decisions.map(\.rule), [.tollFraudRisk, .hour], "both are recorded")
            XCTAssertEqual(verdict.decisions.first?.refuses, false)
            XCTAssertEqual(verdict.sends, policy.mode == .record, "the prefix's own refusal stands in enforce mode")
        }
    }

    func testWindowsSlide() {
        var w = ScopeCounts.Window(start: start, sent: 10, verified: 4)
        w = w.rolled(to: start + ScopeCounts.hour + ScopeCounts.hour / 4, length: ScopeCounts.hour)
        XCTAssertEqual(w.previousSent, 10)
        XCTAssertEqual(w.sent, 0)
        // A quarter into the next hour, three quarters of the previous one still count.
        XCTAssertEqual(w.sliding(now: start + ScopeCounts.hour * 5 / 4, length: ScopeCounts.hour).sent, 7)
        XCTAssertEqual(w.rolled(to: start + 3 * ScopeCounts.hour, length: ScopeCounts.hour).previousSent, 0)
    }

    func testScopesOfASend() throws {
        let phone = try PhoneNumber.parse("+998901234567")
        let scopes = PumpingScope.of(phone, from: ClientAddress("198.51.100.7"))
        XCTAssertEqual(scopes.map(\.name), ["+99890123", "UZ", "198.51.100.0/24"])
        XCTAssertEqual(ClientAddress("2001:db8:1:2::5").network, "2001:db8:1::/48")
        XCTAssertEqual(PumpingScope.of(phone, from: nil).count, 2)
        for address in ["127.0.0.1", "10.1.2.3", "172.20.0.1", "192.168.1.1", "::1", "fd00::1", "fe80::1"] {
            XCTAssertEqual(PumpingScope.of(phone, from: try ClientAddress(address)).count, 2, address)
        }
        XCTAssertEqual(PumpingScope.of(phone, from: ClientAddress("172.32.0.1")).count, 3)
    }

    func testAllowListsAndNetworks() throws {
        var policy = PumpingPolicy()
        policy.allowPrefixes = ["+99890"]
        policy.allowNetworks = [try XCTUnwrap(IPNetwork("203.0.113.0/25"))]
        XCTAssertFalse(policy.judges(try PhoneNumber.parse("+998901234567"), from: nil))
        XCTAssertTrue(policy.judges(try PhoneNumber.parse("+998911234567"), from: nil))
        XCTAssertFalse(policy.judges(try PhoneNumber.parse("+998911234567"), from: ClientAddress("203.0.113.9")))
        XCTAssertTrue(policy.judges(try PhoneNumber.parse("+998911234567"), from: ClientAddress("203.0.113.200")))
        XCTAssertNil(IPNetwork("203.0.113.0/33"))
        XCTAssertNil(IPNetwork("203.0.113.0"))
        XCTAssertTrue(try XCTUnwrap(IPNetwork("2001:db8::/32")).contains(ClientAddress("2001:db8:ffff::1")))
        XCTAssertFalse(try XCTUnwrap(IPNetwork("2001:db8::/32")).contains(ClientAddress("203.0.113.9")))
        policy.mode = .off
        XCTAssertFalse(policy.judges(try PhoneNumber.parse("+998911234567"), from: nil))
    }
}
