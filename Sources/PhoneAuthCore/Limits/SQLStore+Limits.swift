/// The counted windows, by what they count.
enum LimitWindow: String {
    case smsPerIp = "ip", smsPerProject = "project", smsPerRegion = "region", regionBurst = "burst", wrongCodesPerIp =
        "ipfail",
        appChecksPerIp = "appip", voicePerNumber = "voice", voicePerProject = "voiceproject"

    var milliseconds: Int64 {
        switch self {
        case .smsPerIp, .regionBurst, .appChecksPerIp, .voicePerNumber: return 3_600_000
        case .smsPerProject, .smsPerRegion, .voicePerProject: return Self.dayMilliseconds
        case .wrongCodesPerIp: return 300_000
        }
    }
    static let dayMilliseconds: Int64 = 86_400_000

    /// The configuration key of the limit, as errors and events name it.
    var limitName: LimitName {
        switch self {
        case .smsPerIp: return .smsPerIpPerHour
        case .smsPerProject: return .smsPerProjectPerDay
        case .smsPerRegion: return .smsPerRegionPerDay
        case .regionBurst: return .regionBurstPerHour
        case .wrongCodesPerIp: return .wrongCodesPerIpPer5Minutes
        case .appChecksPerIp: return .appChecksPerIpPerHour
        case .voicePerNumber: return .voicePerNumberPerHour
        case .voicePerProject: return .voicePerProjectPerDay
        }
    }
}

/// The abuse limits: send counts, wrong-code counts and number lockouts, all in the caller's
/// transaction.
extension SQLStore {
    /// The first shared send limit (per IP, region, project) a new SMS would break, if any; the
    /// per-number limit is read with the number's other state (SQLStore.sendState).
    func checkSendLimits(_ limits: SendLimits, now: Timestamp, in db: Connection) throws -> LimitTrip? {
        if let ip = limits.clientIp,
            let trip = try slidingLimit(.smsPerIp, key: ip, limit: limits.perIpPerHour, now: now, in: db)
        {
            return trip
        }
        if let trip = try slidingLimit(
            .regionBurst, key: limits.region, limit: limits.regionBurstPerHour, now: now, in: db)
        {
            return trip
        }
        if let trip = try slidingLimit(
            .smsPerRegion, key: limits.region, limit: limits.perRegionPerDay, now: now, in: db)
        {
            return trip
        }
        if let voice = limits.voice {
            if let trip = try slidingLimit(
                .voicePerNumber, key: limits.phone, limit: voice.perNumberPerHour, now: now, in: db)
            {
                return trip
            }
            if let trip = try slidingLimit(.voicePerProject, key: "", limit: voice.perProjectPerDay, now: now, in: db) {
                return trip
            }
        }
        return try slidingLimit(.smsPerProject, key: "", limit: limits.perProjectPerDay, now: now, in: db)
    }

    func countSend(_ limits: SendLimits, now: Timestamp, in db: Connection) throws {
        if let ip = limits.clientIp, limits.perIpPerHour > 0 { try bump(.smsPerIp, key: ip, now: now, in: db) }
        if limits.regionBurstPerHour > 0 { try bump(.regionBurst, key: limits.region, now: now, in: db) }
        if limits.perRegionPerDay > 0 { try bump(.smsPerRegion, key: limits.region, now: now, in: db) }
        if limits.perProjectPerDay > 0 { try bump(.smsPerProject, key: "", now: now, in: db) }
        if let voice = limits.voice {
            if voice.perNumberPerHour > 0 { try bump(.voicePerNumber, key: limits.phone, now: now, in: db) }
            if voice.perProjectPerDay > 0 { try bump(.voicePerProject, key: "", now: now, in: db) }
        }
    }

    /// Refuses when one more event would take the events of the last window (the current fixed
    /// window's count plus the previous one's, weighted by how much of it the sliding window
    /// still covers) over `limit`.
    func slidingLimit(
        _ window: LimitWindow, key: String, limit: Int, now: Timestamp, in db: Connection
    ) throws -> LimitTrip? {
        guard limit > 0 else { return nil }
        let length = window.milliseconds
        let bucket = now.milliseconds - now.milliseconds % length
        let scope = window.rawValue + ":" + key
        // Two scalar subqueries, not "bucket IN (?, ?)": SQLite builds an ephemeral table for an
        // IN list on a key column, which cost more than the rest of the statement (~30 K
        // instructions a send, callgrind).
        let (current, previous) =
            try db.row(
                """
                SELECT (SELECT count FROM counters WHERE bucket = ? AND scope = ?),
                       (SELECT count FROM counters WHERE bucket = ? AND scope = ?)
                """,
                [.int(bucket), .text(scope), .int(bucket - length), .text(scope)]
            ) { row in (row.optionalInt(0) ?? 0, row.optionalInt(1) ?? 0) } ?? (0, 0)
        // In integers, scaled by the window length w: previous * (w - elapsed) / w + current > room.
        let elapsed = now.milliseconds - bucket, w = length, room = Int64(limit - 1)
        guard previous * (w - elapsed) + current * w > room * w else { return nil }
        // When there is room for one more if nothing else is counted: as the previous window
        // fades out, or, if the current one alone fills the limit, as it fades in turn (rounded up).
        func ceilDiv(_ a: Int64, _ b: Int64) -> Int64 { (a + b - 1) / b }
        let position =
            current > room
            ? w + ceilDiv(w * (current - room), current) : ceilDiv(w * (previous - room + current), previous)
        let scopeName: String
        switch window {
        case .smsPerProject, .voicePerProject: scopeName = "project"
        case .voicePerNumber: scopeName = PhoneNumber.mask(key)
        default: scopeName = key
        }
        return LimitTrip(
            limit: window.limitName, scope: scopeName, retryAfterSeconds: Self.seconds(position - elapsed),
            isQuota: [.smsPerProject, .smsPerRegion, .regionBurst, .voicePerProject].contains(window))
    }

    func bump(_ window: LimitWindow, key: String, now: Timestamp, in db: Connection) throws {
        let bucket = now.milliseconds - now.milliseconds % window.milliseconds
        try db.run(
            "INSERT INTO counters (bucket, scope, count) VALUES (?, ?, 1) "
                + "ON CONFLICT (bucket, scope) DO UPDATE SET count = counters.count + 1",
            [.int(bucket), .text(window.rawValue + ":" + key)])
    }

    /// Counts a wrong code for the number; when that makes `maxConsecutiveFailures` in a row, locks
    /// the number (and starts counting afresh for after the lock) and returns until when.
    func countFailure(_ phone: String, limits: CheckLimits, now: Timestamp, in db: Connection) throws -> Timestamp? {
        guard limits.maxConsecutiveFailures > 0 else { return nil }
        // The run is never restarted by a lockout or by time (NIST SP 800-63B counts consecutive
        // failures): after the first lockout, every `failuresBetweenLockouts` wrong codes lock
        // the number again, for twice as long each time.
        guard
            let (failures, lockouts, nextLockAt) = try db.row(
                """
                INSERT INTO number_failures (phone, consecutive, last_failure_at) VALUES (?, 1, ?)
                ON CONFLICT (phone) DO UPDATE SET consecutive = number_failures.consecutive + 1, \
                last_failure_at = excluded.last_failure_at
                RETURNING consecutive, lockouts, next_lock_at
                """, [.text(phone), .int(now.milliseconds)], { (Int($0.int(0)), Int($0.int(1)), Int($0.int(2))) })
        else { return nil }
        guard failures >= (lockouts == 0 ? limits.maxConsecutiveFailures : nextLockAt) else { return nil }
        let until = now.adding(milliseconds: limits.lockoutLength(lockouts + 1))
        try db.run(
            "UPDATE number_failures SET lockouts = ?, locked_until = ?, next_lock_at = ? WHERE phone = ?",
            [
                .int(Int64(lockouts + 1)), .int(until.milliseconds),
                .int(Int64(failures + max(1, limits.failuresBetweenLockouts))),
                .text(phone),
            ])
        return until
    }

    /// Ends the number's run of wrong codes and its lockout; whether it had one.
    package func unlockPhoneNumber(_ phone: String) throws -> Bool {
        try write { db in try db.run("DELETE FROM number_failures WHERE phone = ?", [.text(phone)]) > 0 }
    }

    static func seconds(_ milliseconds: Int64) -> Int64 { max(1, (milliseconds + 999) / 1000) }
}
