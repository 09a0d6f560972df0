/// The pumping defense's counts and decisions, in the caller's transaction: one statement reads
/// a send's scopes, one writes them back (every engine on the database judges from the same rows).
extension SQLStore {
    /// Judges a new send and stores what was decided: the scopes' counts (the send counted when
    /// it goes ahead), their blocks, and the decision's record. nil: the send goes ahead unflagged.
    func judgeSend(_ check: PumpingCheck, now: Timestamp, in db: Connection) throws -> PumpingDecision? {
        let keys = check.scopes.map(\.key)
        let stored = try pumpingCounts(keys, in: db)
        let verdict = try PumpingJudge(policy: check.policy, now: now.milliseconds).judge(check.scopes, stored) {
            try db.row(
                "SELECT 1 FROM users WHERE tenant = ? AND phone = ?",
                [.text(check.tenant.text), .text(check.phone.e164)]
            ) { _ in true } ?? false
        }
        try savePumpingCounts(keys, verdict.counts, in: db)
        guard let found = verdict.decision else { return nil }
        let decision = PumpingDecision(
            id: SortableID.make(at: now, randomBytes: PumpingDecision.idRandomBytes), at: now,
            action: verdict.sends ? .flagged : .refused,
            scope: found.scope, rule: found.rule, sent: found.seen.sent, verified: found.seen.verified,
            allowance: found.seen.allowance, until: Timestamp(milliseconds: found.until),
            region: check.phone.region, tenant: check.tenant)
        try db.run(
            """
            INSERT INTO pumping_decisions (id, at, action, scope_kind, scope, rule, sent, verified, allowance, until, \
            region, tenant) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(decision.id), .int(now.milliseconds), .text(decision.action.rawValue),
                .text(decision.scope.kind.rawValue), .text(decision.scope.name), .text(decision.rule.rawValue),
                .int(decision.sent), .int(decision.verified), .int(decision.allowance),
                .int(decision.until.milliseconds), .text(decision.region),
                .text(decision.tenant.text),
            ])
        return decision
    }

    /// Credits an entered code to the scopes its send was counted in (`keys` as the
    /// verification's row keeps them).
    func countPumpingVerified(_ keys: String, now: Timestamp, in db: Connection) throws {
        let keys = keys.split(separator: " ").map(String.init)
        guard !keys.isEmpty, keys.count <= PumpingSQL.maxScopes else { return }
        let counts = try pumpingCounts(keys, in: db).map {
            var counts = $0.rolled(to: now.milliseconds)
            counts.countVerified()
            return counts
        }
        try savePumpingCounts(keys, counts, in: db)
    }

    package func pumpingDecisions(afterId: String?, limit: Int) throws -> [PumpingDecision] {
        try read { db in
            var decisions: [PumpingDecision] = []
            try db.rows(
                """
                SELECT id, at, action, scope_kind, scope, rule, sent, verified, allowance, until, region, tenant \
                FROM pumping_decisions WHERE id < ? ORDER BY id DESC LIMIT ?
                """, [.text(afterId ?? "~"), .int(Int64(limit))]
            ) { row in
                decisions.append(
                    PumpingDecision(
                        id: row.text(0), at: Timestamp(milliseconds: row.int(1)),
                        action: try row.text(2, as: PumpingDecision.Action.self),
                        scope: PumpingScope(kind: try row.text(3, as: PumpingScope.Kind.self), name: row.text(4)),
                        rule: try row.text(5, as: PumpingDecision.Rule.self), sent: row.int(6), verified: row.int(7),
                        allowance: row.int(8), until: Timestamp(milliseconds: row.int(9)),
                        region: row.text(10), tenant: TenantID(unchecked: row.text(11))))
            }
            return decisions
        }
    }

    /// The counts of `keys`, in order (a scope never counted has none).
    private func pumpingCounts(_ keys: [String], in db: Connection) throws -> [ScopeCounts] {
        var found: [String: ScopeCounts] = [:]
        try db.rows(
            PumpingSQL.selects[keys.count], keys.map { .text($0) }
        ) { row in
            func window(_ at: Int32) -> ScopeCounts.Window {
                ScopeCounts.Window(
                    start: row.int(at), sent: row.int(at + 1), verified: row.int(at + 2),
                    previousSent: row.int(at + 3), previousVerified: row.int(at + 4))
            }
            found[row.text(0)] = ScopeCounts(
                hour: window(1), day: window(6), week: window(11), blockedUntil: row.int(16),
                strikes: Int(row.int(17)))
        }
        return keys.map { found[$0] ?? ScopeCounts() }
    }

    private func savePumpingCounts(_ keys: [String], _ counts: [ScopeCounts], in db: Connection) throws {
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

/// The statements for 0 to 4 scopes, made once.
private enum PumpingSQL {
    /// A send counts in at most four scopes (prefix, range, country, network).
    static let maxScopes = 4

    static let countColumns =
        ["hour", "day", "week"].flatMap { window in
            ["start", "sent", "verified", "previous_sent", "previous_verified"].map { "\(window)_\($0)" }
        } + ["blocked_until", "strikes"]

    static let selects = (0...maxScopes).map { count in
        "SELECT scope, \(countColumns.joined(separator: ", ")) FROM pumping_scopes WHERE scope IN ("
            + Array(repeating: "?", count: count).joined(separator: ", ") + ")"
    }

    static let upserts = (0...maxScopes).map { count in
        let row = "(" + Array(repeating: "?", count: countColumns.count + 1).joined(separator: ", ") + ")"
        return "INSERT INTO pumping_scopes (scope, \(countColumns.joined(separator: ", "))) VALUES "
            + Array(repeating: row, count: count).joined(separator: ", ") + " ON CONFLICT (scope) DO UPDATE SET "
            + countColumns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    }
}
