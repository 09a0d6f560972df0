/// One scope's counts as the store keeps them: codes sent and codes verified in the current and
/// the previous hour, day and week (fixed windows, read as sliding ones), and its block.
struct ScopeCounts: Sendable, Equatable {
    struct Window: Sendable, Equatable {
        var start: Int64 = 0
        var sent: Int64 = 0
        var verified: Int64 = 0
        var previousSent: Int64 = 0
        var previousVerified: Int64 = 0

        /// The window that holds `now`: the current one, or a new one after it.
        func rolled(to now: Int64, length: Int64) -> Window {
            let start = now - now % length
            guard start != self.start else { return self }
            var next = Window(start: start)
            if start == self.start + length { (next.previousSent, next.previousVerified) = (sent, verified) }
            return next
        }

        /// The counts of the last `length` milliseconds: the previous window's weighted by how
        /// much of it they still cover.
        func sliding(now: Int64, length: Int64) -> (sent: Int64, verified: Int64) {
            let covered = max(0, length - (now - start))
            return (sent + previousSent * covered / length, verified + previousVerified * covered / length)
        }
    }

    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000
    static let week: Int64 = 604_800_000

    var hour = Window()
    var day = Window()
    var week = Window()
    /// Until when the scope is blocked (ms; 0: never was), and how many blocks in a row it had.
    var blockedUntil: Int64 = 0
    var strikes = 0

    /// The counts with every window moved on to `now`.
    func rolled(to now: Int64) -> ScopeCounts {
        var counts = self
        counts.hour = hour.rolled(to: now, length: Self.hour)
        counts.day = day.rolled(to: now, length: Self.day)
        counts.week = week.rolled(to: now, length: Self.week)
        return counts
    }

    /// Whether every window holds `now` (a row never written holds none).
    func isCurrent(at now: Int64) -> Bool {
        hour.start == now - now % Self.hour && day.start == now - now % Self.day && week.start == now - now % Self.week
    }

    mutating func countSent() {
        hour.sent += 1
        day.sent += 1
        week.sent += 1
    }

    mutating func countVerified() {
        hour.verified += 1
        day.verified += 1
        week.verified += 1
    }

    /// The counts once an operator lifts the scope's block at `now` (liftPumpingBlock): the
    /// block ends now, the codes of the last hour and day that were not entered are forgiven
    /// (sent brought down to entered; kept, the next send would trip again at once), and the run
    /// of blocks starts over (the operator judged this one a mistake: the next is the first).
    /// The week's counts, the verified history, stay.
    func lifted(at now: Int64) -> ScopeCounts {
        var counts = rolled(to: now)
        for window in [\ScopeCounts.hour, \ScopeCounts.day] {
            counts[keyPath: window].sent = counts[keyPath: window].verified
            counts[keyPath: window].previousSent = counts[keyPath: window].previousVerified
        }
        counts.blockedUntil = now
        counts.strikes = 0
        return counts
    }

    /// Verified codes of the last week.
    func weekVerified(now: Int64) -> Int64 { week.sliding(now: now, length: Self.week).verified }
}
