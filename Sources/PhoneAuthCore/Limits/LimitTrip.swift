/// A limit that refused a call: its configuration key, what it counts (a masked number, an IP
/// address, a region or "project"), and when trying again may succeed.
package final class LimitTrip: Sendable {
    package let limit: LimitName
    package let scope: String
    package let retryAfterSeconds: Int64
    /// A quota of the whole project or a region (quotaExceeded), not of one caller (tooManyRequests).
    package let isQuota: Bool

    package init(limit: LimitName, scope: String, retryAfterSeconds: Int64, isQuota: Bool) {
        self.limit = limit
        self.scope = scope
        self.retryAfterSeconds = retryAfterSeconds
        self.isQuota = isQuota
    }
}
