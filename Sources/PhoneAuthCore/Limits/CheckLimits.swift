/// The wrong-code limits checked with each code (0: no limit). Numbers in `exempt` (the test
/// numbers) are neither counted nor locked.
package struct CheckLimits: Sendable {
    /// Wrong codes in a row before the first lockout, and after each lockout before the next.
    package var maxConsecutiveFailures: Int
    package var failuresBetweenLockouts: Int
    /// The first lockout's length; each next one doubles, up to the maximum.
    package var lockoutMilliseconds: Int64
    package var maxLockoutMilliseconds: Int64
    package var clientIp: String?
    package var wrongCodesPerIpPer5Minutes: Int
    package var exempt: Set<String>

    package static let none = CheckLimits(
        maxConsecutiveFailures: 0, failuresBetweenLockouts: 0, lockoutMilliseconds: 0, maxLockoutMilliseconds: 0,
        clientIp: nil, wrongCodesPerIpPer5Minutes: 0, exempt: [])

    /// The length of a number's `lockouts`-th lockout (counting from 1).
    package func lockoutLength(_ lockouts: Int) -> Int64 {
        let doublings = min(max(lockouts - 1, 0), 40)
        // A long first lockout doubled 40 times leaves Int64: then it is simply the longest.
        let (length, overflow) = lockoutMilliseconds.multipliedReportingOverflow(by: Int64(1) << doublings)
        return overflow ? maxLockoutMilliseconds : min(maxLockoutMilliseconds, length)
    }
}
