/// The pumping defense's counts and decisions, in the caller's transaction (every engine on the
/// database judges from the same rows). A send's scope rows are read with the number's state
/// (SQLStore.sendState) and, while their windows are current, each gets one more in place; an
/// entered code likewise. A window that moves on, or a block set, writes the rows whole.
extension SQLStore {
    /// Judges a new send and stores what was decided: the scopes' counts (the send counted when
    /// it goes ahead), their blocks, and the decision's record. nil: the send goes ahead unflagged.
    /// `before` are the scopes' counts as the transaction read them (with the number's state).
    func judgeSend(
        _ check: PumpingCheck, counts before: [ScopeCounts], now: Timestamp, in db: Connection
    ) throws -> PumpingDecision? {
        let keys = check.scopeKeys
        let judge = PumpingJudge(policy: check.policy, now: now.milliseconds)
        let verdict = try judge.judge(check.scopes, before, tollFraudRisk: check.tollFraudRisk) {
            try db.row(
                "SELECT 1 FROM users WHERE tenant = ? AND phone = ?",
                [.text(check.tenant.text), .text(check.phone.e164)]
            ) { _ in true } ?? false
        }
        // Most sends go ahead, change no block and find every window current: counted in place.
        let inPlace =
            verdict.sends && before.allSatisfy { $0.isCurrent(at: now.milliseconds) }
            && zip(before, verdict.counts).allSatisfy { $0.blockedUntil == $1.blockedUntil }
        let counted =
            try inPlace && countInPlace(keys, PumpingSQL.countSent, now: now, in: db)
        if !counted { try savePumpingCounts(keys, verdict.counts, in: db) }
        // The send's answer names the last: a scope's decision when there is one.
        return try verdict.decisions.map { try keep($0, of: check, at: now, in: db) }.last
    }

    /// Keeps a decision and records its event, in the judging transaction.
    private func keep(
        _ found: PumpingJudge.Verdict.Decision, of check: PumpingCheck, at now: Timestamp, in db: Connection
    ) throws -> PumpingDecision {
        let decision = PumpingDecision(
            id: SortableID.make(at: now, randomBytes: PumpingDecision.idRandomBytes), at: now,
            action: found.refuses ? .refused : .flagged,
            scope: found.scope, rule: found.rule, sent: found.seen.sent, verified: found.seen.verified,
            allowance: found.seen.allowance, risk: found.seen.risk, startScore: found.seen.startScore,
            until: Timestamp(milliseconds: found.until),
            region: check.phone.region, tenant: check.tenant, channel: check.channel)
        try insertDecision(decision, in: db)
        // Under the scope (not a number, to be masked): its decisions are delivered in order.
        try record(
            .pumpingSuspected, subject: "pumping:" + decision.scope.name, decision.fields.map { ($0, $1) }, at: now,
            in: db)
        return decision
    }

    /// Writes a decision's row.
    func insertDecision(_ decision: PumpingDecision, in db: Connection) throws {
        try db.run(
            """
            INSERT INTO pumping_decisions (id, at, action, scope_kind, scope, rule, sent, verified, allowance, until, \
            region, tenant, channel, risk_per_million, start_score_per_million) \
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(decision.id), .int(decision.at.milliseconds), .text(decision.action.rawValue),
                .text(decision.scope.kind.rawValue), .text(decision.scope.name), .text(decision.rule.rawValue),
                .int(decision.sent), .int(decision.verified), .int(decision.allowance),
                .int(decision.until.milliseconds), .text(decision.region),
                .text(decision.tenant.text), .text(decision.channel.rawValue),
                PumpingSQL.perMillion(decision.risk), PumpingSQL.perMillion(decision.startScore),
            ])
    }

    /// Credits an entered code to the scopes its send was counted in (`keys` as the
    /// verification's row keeps them).
    func countPumpingVerified(_ keys: String, now: Timestamp, in db: Connection) throws {
        let keys = PumpingCheck.keys(keys)
        guard !keys.isEmpty, keys.count <= PumpingSQL.maxScopes else { return }
        if try countInPlace(keys, PumpingSQL.countVerified, now: now, in: db) { return }
        // A row missing or out of date: those the statement counted are current, the others are
        // moved on and counted here.
        let counts = try pumpingCounts(keys, in: db).map {
            guard !$0.isCurrent(at: now.milliseconds) else { return $0 }
            var counts = $0.rolled(to: now.milliseconds)
            counts.countVerified()
            return counts
        }
        try savePumpingCounts(keys, counts, in: db)
    }

    /// Credits entered codes once the transaction that checked them committed, in a transaction
    /// of their own whose increments wait on row locks (PostgreSQL): in the sign-in's serializable
    /// transaction, every sign-in and send of a country would conflict over the country's row.
    /// A credit a failure loses leaves its scopes a little stricter; it never fails a sign-in.
    func creditAfterCommit(_ credits: [(keys: String, at: Timestamp)]) {
        _ = try? write(rowLocksSuffice: true) { db in
            for credit in credits { try countPumpingVerified(credit.keys, now: credit.at, in: db) }
        }
    }

    /// Runs `increment` (one more code sent, or verified) on each of `keys`' rows whose windows
    /// hold `now`: whether every row was counted. One statement per row: SQLite would make a
    /// temporary table of an IN list.
    private func countInPlace(_ keys: [String], _ increment: String, now: Timestamp, in db: Connection) throws -> Bool {
        let current = ScopeCounts().rolled(to: now.milliseconds)
        var all = true
        for key in keys {
            let changed = try db.run(
                increment, [.text(key), .int(current.hour.start), .int(current.day.start), .int(current.week.start)])
            all = all && changed == 1
        }
        return all
    }

    package func pumpingDecisions(afterId: String?, limit: Int) throws -> [PumpingDecision] {
        try read { db in
            var decisions: [PumpingDecision] = []
            try db.rows(
                """
                SELECT id, at, action, scope_kind, scope, rule, sent, verified, allowance, until, region, tenant, \
                channel, risk_per_million, start_score_per_million FROM pumping_decisions WHERE id < ? \
                ORDER BY id DESC LIMIT ?
                """, [.text(afterId ?? "~"), .int(Int64(limit))]
            ) { row in
                decisions.append(
                    PumpingDecision(
                        id: row.text(0), at: Timestamp(milliseconds: row.int(1)),
                        action: try row.text(2, as: PumpingDecision.Action.self),
                        scope: PumpingScope(kind: try row.text(3, as: PumpingScope.Kind.self), name: row.text(4)),
                        rule: try row.text(5, as: PumpingDecision.Rule.self), sent: row.int(6), verified: row.int(7),
                        allowance: row.int(8), risk: PumpingSQL.score(row, 13),
                        startScore: PumpingSQL.score(row, 14),
                        until: Timestamp(milliseconds: row.int(9)),
                        region: row.text(10), tenant: TenantID(unchecked: row.text(11)),
                        channel: try row.text(12, as: Channel.self)))
            }
            return decisions
        }
    }

    package func pumpingCountries(now: Timestamp) throws -> [CountryCounts] {
        try read { db in
            var countries: [CountryCounts] = []
            // The country rows' keys are "c:" and a region: a range of the primary key.
            try db.rows(PumpingSQL.countries, [.text("c:"), .text("c;")]) {
                countries.append(
                    CountryCounts(
                        region: String($0.text(0).dropFirst(2)), PumpingSQL.scopeCounts($0, at: 0),
                        now: now.milliseconds))
            }
            return countries
        }
    }

    /// Counted from the verifications of the last day, a range of their IDs (which begin with
    /// their time): those that sent something (not a test number's), those whose latest message a
    /// receipt said arrived, and those whose code was entered. The purge keeps a verification a
    /// day after it expires.
    package func channelCounts(now: Timestamp) throws -> [ChannelCounts] {
        let hourAgo = SortableID.prefix(now.adding(seconds: -3600))
        return try read { db in
            var counts: [ChannelCounts] = []
            try db.rows(
                """
                SELECT region, channel, count(*), \
                sum(CASE WHEN state = ? THEN 1 ELSE 0 END), \
                sum(CASE WHEN id >= ? THEN 1 ELSE 0 END), \
                sum(CASE WHEN id >= ? AND state = ? THEN 1 ELSE 0 END), \
                sum(CASE WHEN delivery = ? THEN 1 ELSE 0 END), \
                sum(CASE WHEN id >= ? AND delivery = ? THEN 1 ELSE 0 END) \
                FROM verifications WHERE id >= ? AND region IS NOT NULL AND delivery != ? \
                GROUP BY region, channel ORDER BY region, channel
                """,
                [
                    .text(VerificationState.used), .text(hourAgo), .text(hourAgo), .text(VerificationState.used),
                    .text(DeliveryState.delivered), .text(hourAgo), .text(DeliveryState.delivered),
                    .text(SortableID.prefix(now.adding(seconds: -86_400))), .text(DeliveryState.none),
                ]
            ) { row in
                counts.append(
                    ChannelCounts(
                        region: row.text(0), channel: try row.text(1, as: Channel.self), sentLastHour: row.int(4),
                        verifiedLastHour: row.int(5), sentLastDay: row.int(2), verifiedLastDay: row.int(3),
                        deliveredLastHour: row.int(7), deliveredLastDay: row.int(6)))
            }
            return counts
        }
    }

    /// The counts of `keys`, in order (a scope never counted has none).
    func pumpingCounts(_ keys: [String], in db: Connection) throws -> [ScopeCounts] {
        try keys.map { key in
            try db.row(PumpingSQL.select, [.text(key)]) { PumpingSQL.scopeCounts($0, at: 0) } ?? ScopeCounts()
        }
    }

    func savePumpingCounts(_ keys: [String], _ counts: [ScopeCounts], in db: Connection) throws {
        var values: [SQLValue] = []
        for (key, c) in zip(keys, counts) {
            values.append(.text(key))
            for w in [c.hour, c.day, c.week] {
                values += [
                    .int(w.start), .int(w.sent), .int(w.verified), .int(w.previousSent), .int(w.previousVerified),
                ]
            }
            values += [.int(c.blockedUntil), .int(Int64(c.strikes))]
        }
        try db.run(PumpingSQL.upserts[keys.count], values)
    }
}

/// The statements for 0 to 3 scopes, made once.
enum PumpingSQL {
    /// A send counts in at most three scopes (prefix, country, network).
    static let maxScopes = 3

    /// A score (0 to 1; the verifiers refuse any other) as the decisions keep it: in millionths,
    /// as the store keeps every number.
    static func perMillion(_ score: Double?) -> SQLValue {
        score.map { .int(Int64((min(max($0, 0), 1) * 1e6).rounded())) } ?? .null
    }

    /// A score `perMillion` kept, read from column `at`.
    static func score(_ row: some SQLRow, _ at: Int32) -> Double? { row.optionalInt(at).map { Double($0) / 1e6 } }

    static let countColumns =
        ["hour", "day", "week"].flatMap { window in
            ["start", "sent", "verified", "previous_sent", "previous_verified"].map { "\(window)_\($0)" }
        } + ["blocked_until", "strikes"]

    /// A scope's row as `scopeCounts` reads it.
    private static let selectRows = "SELECT scope, \(countColumns.joined(separator: ", ")) FROM pumping_scopes"

    static let select = selectRows + " WHERE scope = ?"

    /// `count` scopes' rows read beside another statement's: its extra columns (`scope` and the
    /// counts of each) and its LEFT JOINs, each on a key bound after the statement's own.
    static func joins(_ count: Int) -> (columns: String, joins: String) {
        let names = (0..<count).map { "s\($0)" }
        let columns = names.flatMap { name in (["scope"] + countColumns).map { "\(name).\($0)" } }
        return (
            columns.map { ", " + $0 }.joined(),
            names.map { " LEFT JOIN pumping_scopes \($0) ON \($0).scope = ?" }.joined()
        )
    }

    /// The counts of `count` scopes read by `joins`, their columns from `at` on (a scope never
    /// counted has none).
    static func counts(_ row: some SQLRow, at: Int32, count: Int) -> [ScopeCounts] {
        let width = Int32(countColumns.count + 1)
        return (0..<Int32(count)).map { (i: Int32) -> ScopeCounts in
            let first: Int32 = at + i * width
            return row.isNull(first) ? ScopeCounts() : scopeCounts(row, at: first)
        }
    }

    /// A row of `pumping_scopes` read as `scope, <countColumns>` from column `at` on.
    static func scopeCounts(_ row: some SQLRow, at: Int32) -> ScopeCounts {
        func window(_ offset: Int32) -> ScopeCounts.Window {
            let first = at + offset
            return ScopeCounts.Window(
                start: row.int(first), sent: row.int(first + 1), verified: row.int(first + 2),
                previousSent: row.int(first + 3), previousVerified: row.int(first + 4))
        }
        return ScopeCounts(
            hour: window(1), day: window(6), week: window(11), blockedUntil: row.int(at + 16),
            strikes: Int(row.int(at + 17)))
    }

    static let countries = selectRows + " WHERE scope >= ? AND scope < ? ORDER BY scope"

    /// One more code sent, or verified, in a row whose windows start where given.
    static let countSent = increment("sent")
    static let countVerified = increment("verified")

    private static func increment(_ what: String) -> String {
        "UPDATE pumping_scopes SET hour_\(what) = hour_\(what) + 1, day_\(what) = day_\(what) + 1, "
            + "week_\(what) = week_\(what) + 1 WHERE scope = ? AND hour_start = ? AND day_start = ? AND week_start = ?"
    }

    static let upserts = (0...maxScopes).map { count in
        let row = "(" + Array(repeating: "?", count: countColumns.count + 1).joined(separator: ", ") + ")"
        return "INSERT INTO pumping_scopes (scope, \(countColumns.joined(separator: ", "))) VALUES "
            + Array(repeating: row, count: count).joined(separator: ", ") + " ON CONFLICT (scope) DO UPDATE SET "
            + countColumns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    }
}
