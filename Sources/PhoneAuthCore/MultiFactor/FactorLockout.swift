/// How long a TOTP factor is locked after consecutive wrong codes, across challenges: a new
/// challenge must not buy fresh guesses. Every `failuresPerLock` failures lock it, for a time
/// that doubles each time (5 min, 10 min, … at most a day), so a year of guessing gets about 85
/// tries at a 3-in-a-million chance each.
package enum FactorLockout {
    package static let failuresPerLock = 5
    static let firstLockMilliseconds: Int64 = 5 * 60 * 1000
    static let longestLockMilliseconds: Int64 = 24 * 3600 * 1000

    /// The lock earned by the `failures`-th consecutive failure, if it earns one.
    package static func lockMilliseconds(afterFailures failures: Int) -> Int64? {
        guard failures > 0, failures % failuresPerLock == 0 else { return nil }
        let doublings = min(failures / failuresPerLock - 1, 20)
        return min(firstLockMilliseconds << Int64(doublings), longestLockMilliseconds)
    }
}
