/// Milliseconds since the Unix epoch, UTC: the engine's one representation of time.
public struct Timestamp: Comparable, Hashable, Sendable {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }
    public init(seconds: Int64) { self.milliseconds = seconds * 1000 }

    public var seconds: Int64 { milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000 }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.milliseconds < b.milliseconds }

    public func adding(seconds: Int64) -> Timestamp { Timestamp(milliseconds: milliseconds + seconds * 1000) }
    public func adding(milliseconds ms: Int64) -> Timestamp { Timestamp(milliseconds: milliseconds + ms) }

    /// RFC 3339 in UTC with second precision, e.g. "2026-11-21T09:30:00Z".
    public var rfc3339: String {
        let secs = seconds
        var days = secs >= 0 ? secs / 86_400 : (secs - 86_399) / 86_400
        let secondOfDay = secs - days * 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ n: Int64, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))Z"
    }
}
