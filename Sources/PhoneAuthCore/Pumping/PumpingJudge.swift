/// Decides about one send from its scopes' counts, without I/O (PumpingJudgeTests drive it
/// directly): whether a scope trips, the block that sets, whether the send is exempt, and the
/// counts to store.
struct PumpingJudge {
    let policy: PumpingPolicy
    let now: Int64

    /// What to store and what was decided: no decision lets the send go ahead uncontested.
    struct Verdict {
        typealias Decision = (
            scope: PumpingScope, rule: PumpingDecision.Rule, seen: Seen, until: Int64, refuses: Bool
        )
        var counts: [ScopeCounts]
        /// What to record: the provider's rating's decision, then a scope's.
        var decisions: [Decision] = []
        /// Whether the send goes ahead (and was counted as sent).
        var sends: Bool

        /// The decision the send's answer names: a scope's when there is one.
        var decision: Decision? { decisions.last }
    }

    /// The counts a rule saw: sent and verified in its window, and the unverified codes allowed;
    /// for the toll fraud rule, the send's risk and the rule's start score instead.
    struct Seen: Equatable {
        var sent: Int64
        var verified: Int64
        var allowance: Int64
        var risk: Double? = nil
        var startScore: Double? = nil
    }

    /// Judges a send counted in `scopes` (narrowest first) whose stored counts are `stored`, and
    /// which its captcha provider rated `tollFraudRisk`. `numberKnown` (asked only when a scope
    /// would refuse): whether the number has signed in before.
    func judge(
        _ scopes: [PumpingScope], _ stored: [ScopeCounts], tollFraudRisk: Double? = nil,
        numberKnown: () throws -> Bool
    ) rethrows -> Verdict {
        var counts = stored.map { $0.rolled(to: now) }
        // The provider rated this number itself: nothing the counts know exempts it, and a
        // refusal for it comes first.
        var rated: Verdict.Decision?
        if let start = policy.tollFraud.blockingStart(tollFraudRisk), let prefix = scopes.first {
            let refuses = policy.mode == .enforce && policy.tollFraud.phoneEnforcementState == .enforce
            let seen = Seen(sent: 0, verified: 0, allowance: 0, risk: tollFraudRisk, startScore: start)
            rated = (prefix, .tollFraudRisk, seen, now, refuses)
            if refuses {
                return Verdict(counts: counts, decisions: [(prefix, .tollFraudRisk, seen, now, true)], sends: false)
            }
        }
        var decision: Verdict.Decision?
        var networkTripped = false, networkKnown = false
        for (index, scope) in scopes.enumerated() {
            var trip: (PumpingDecision.Rule, Seen)?
            if counts[index].blockedUntil > now {
                trip = (.blocked, hourSeen(counts[index], floor: floor(scope)))
            } else if let (rule, seen) = tripped(counts[index], floor: floor(scope)) {
                block(&counts[index])
                trip = (rule, seen)
            }
            if scope.kind == .network {
                networkTripped = trip != nil
                networkKnown =
                    policy.knownNetworkVerified > 0
                    && counts[index].weekVerified(now: now) >= Int64(policy.knownNetworkVerified)
            }
            if decision == nil, let (rule, seen) = trip {
                decision = (scope, rule, seen, counts[index].blockedUntil, policy.mode == .enforce)
            }
        }
        let flagged = rated.map { [$0] } ?? []
        if let found = decision {
            // A number that signed in before keeps getting codes; so does a known network's new one
            // to a blocked destination, unless the network itself tripped.
            let networkVouches = found.scope.kind != .network && !networkTripped && networkKnown
            if try !networkVouches && !numberKnown() {
                let sends = !found.refuses
                return Verdict(counts: sends ? sent(counts) : counts, decisions: flagged + [found], sends: sends)
            }
        }
        return Verdict(counts: sent(counts), decisions: flagged, sends: true)
    }

    private func floor(_ scope: PumpingScope) -> Int64 { Int64(policy.hourFloors[scope.kind] ?? 1) }

    private func sent(_ counts: [ScopeCounts]) -> [ScopeCounts] {
        counts.map {
            var c = $0
            c.countSent()
            return c
        }
    }

    /// Whether one more unverified code would take the last hour's or day's over what the
    /// scope's verified history allows: the more of its codes are entered, the more it may send.
    func tripped(_ counts: ScopeCounts, floor: Int64) -> (PumpingDecision.Rule, Seen)? {
        let hour = hourSeen(counts, floor: floor)
        if hour.sent - hour.verified + 1 > hour.allowance { return (.hour, hour) }
        let (sent, verified) = counts.day.sliding(now: now, length: ScopeCounts.day)
        // The day's verified codes, or an average day of the last week's if more.
        let history = max(verified, counts.weekVerified(now: now) / 7)
        let day = Seen(
            sent: sent, verified: verified,
            allowance: allowance(history, floor: floor * Int64(PumpingPolicy.dayFloorHours)))
        if day.sent - day.verified + 1 > day.allowance { return (.day, day) }
        return nil
    }

    private func hourSeen(_ counts: ScopeCounts, floor: Int64) -> Seen {
        let (sent, verified) = counts.hour.sliding(now: now, length: ScopeCounts.hour)
        // The hour's verified codes, or twice an average hour of the last week's if more.
        let history = max(verified, counts.weekVerified(now: now) * 2 / 168)
        return Seen(sent: sent, verified: verified, allowance: allowance(history, floor: floor))
    }

    /// The unverified codes a scope with `verified` codes of history may have: the floor when it
    /// has none (a cold start); once the history is larger, its share of it plus twice its square
    /// root (real users' unentered codes vary: a small scope's more, in proportion); never below
    /// half the floor.
    func allowance(_ verified: Int64, floor: Int64) -> Int64 {
        let share = verified * Int64(policy.unverifiedPerHundredVerified) / 100
        let margin = Int64((Double(verified) * 4).squareRoot())
        return max(floor / 2, share + margin, floor - verified)
    }

    /// Blocks the scope from now: each block twice the one before while they follow each other
    /// (within the longest block of the last one's end), up to the longest.
    private func block(_ counts: inout ScopeCounts) {
        let longest = policy.maxBlockSeconds * 1000
        if now > counts.blockedUntil + longest { counts.strikes = 0 }
        let length = min(longest, policy.blockSeconds * 1000 << min(counts.strikes, 20))
        counts.blockedUntil = now + length
        counts.strikes += 1
    }
}
