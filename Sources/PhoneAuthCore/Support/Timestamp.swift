/// Milliseconds since the Unix epoch, UTC: the engine's one representation of time.
package struct Timestamp: Comparable, Hashable, Sendable {
    package var milliseconds: Int64

    package init(milliseconds: Int64) { self.milliseconds = milliseconds }
    package init(seconds: Int64) { self.milliseconds = seconds * 1000 }

    package var seconds: Int64 { milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000 }

    package static func < (a: Timestamp, b: Timestamp) -> Bool { a.milliseconds < b.milliseconds }

    package func adding(seconds: Int64) -> Timestamp { Timestamp(milliseconds: milliseconds + seconds * 1000) }
    package func adding(milliseconds ms: Int64) -> Timestamp { Timestamp(milliseconds: milliseconds + ms) }

    /// RFC 3339 in UTC with millisecond precision, e.g. "2026-11-21T09:30:00.250Z": every time the
    /// engine writes has the one precision it keeps.
    package var rfc3339: String {
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
        // Written digit by digit: this runs for several fields of every result.
        let millisecond = milliseconds - secs * 1000
        return String(unsafeUninitializedCapacity: 40) { out in
            var i = 0
            func put(_ n: Int64, _ width: Int) {
                var n = n, end = i + width
                while end > i { end -= 1; out[end] = UInt8(48 + n % 10); n /= 10 }
                i += width
            }
            func mark(_ c: UInt8) { out[i] = c; i += 1 }
            if year < 0 || year > 9999 {
                // Outside RFC 3339's four digits: still a readable, sortable text.
                for c in String(year).utf8 { mark(c) }
            } else {
                put(year, 4)
            }
            mark(45); put(month, 2); mark(45); put(day, 2); mark(84)
            put(secondOfDay / 3600, 2); mark(58); put(secondOfDay / 60 % 60, 2); mark(58); put(secondOfDay % 60, 2)
            mark(46); put(millisecond, 3); mark(90)
            return i
        }
    }
}

extension Timestamp {
    /// Reads RFC 3339 in UTC ("2026-11-21T09:30:00Z", fractions of a second optional, or a
    /// numeric offset); nil for anything else.
    package init?(rfc3339 text: String) {
        let b = Array(text.utf8)
        func digits(_ at: Int, _ count: Int) -> Int64? {
            guard at + count <= b.count else { return nil }
            var n: Int64 = 0
            for c in b[at..<at + count] {
                guard (48...57).contains(c) else { return nil }
                n = n * 10 + Int64(c - 48)
            }
            return n
        }
        guard b.count >= 20, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 116, b[13] == 58, b[16] == 58,
            let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
            let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var i = 19, millis: Int64 = 0
        if b[i] == 46 {
            i += 1
            var scale: Int64 = 100
            let start = i
            while i < b.count, (48...57).contains(b[i]) {
                millis += Int64(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset: Int64 = 0
        if i == b.count - 1, b[i] == 90 || b[i] == 122 {
            i += 1
        } else if i + 6 == b.count, b[i] == 43 || b[i] == 45, b[i + 3] == 58, let h = digits(i + 1, 2),
            let m = digits(i + 4, 2)
        {
            offset = (h * 60 + m) * 60 * (b[i] == 43 ? 1 : -1)
            i += 6
        }
        guard i == b.count else { return nil }
        // Days since 1970-01-01 from the civil date (Howard Hinnant's algorithm, inverted).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        self.init(milliseconds: ((days * 86_400 + hour * 3600 + minute * 60 + second) - offset) * 1000 + millis)
    }
}
