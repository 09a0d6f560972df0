/// One country's codes sent and entered in the last hour and day, as the pumping defense counted
/// them (the JSON method `getPumpingStatistics`, phoneauthd's /metrics): a conversion that falls
/// is what an operator watches for.
package struct CountryCounts: Sendable, Equatable {
    package var region: String
    package var sentLastHour: Int64
    package var verifiedLastHour: Int64
    package var sentLastDay: Int64
    package var verifiedLastDay: Int64
    /// Until when the country is blocked, when it is.
    package var blockedUntil: Timestamp?

    init(region: String, _ counts: ScopeCounts, now: Int64) {
        self.region = region
        let rolled = counts.rolled(to: now)
        (sentLastHour, verifiedLastHour) = rolled.hour.sliding(now: now, length: ScopeCounts.hour)
        (sentLastDay, verifiedLastDay) = rolled.day.sliding(now: now, length: ScopeCounts.day)
        blockedUntil = counts.blockedUntil > now ? Timestamp(milliseconds: counts.blockedUntil) : nil
    }

    package var fields: [(String, JSONValue)] {
        [
            ("region", .string(region)), ("sentLastHour", .int(sentLastHour)),
            ("verifiedLastHour", .int(verifiedLastHour)), ("sentLastDay", .int(sentLastDay)),
            ("verifiedLastDay", .int(verifiedLastDay)), ("blockedUntil", blockedUntil.map { .string($0.rfc3339) }),
        ].compactMap { key, value in value.map { (key, $0) } }
    }
}
