/// An operator lifting a block of the pumping defense (the JSON method `liftPumpingBlock`), in one
/// transaction with the sends that read the scope's row.
extension SQLStore {
    package func liftPumpingBlock(_ scope: PumpingScope, now: Timestamp) throws -> PumpingDecision? {
        try write { db in
            guard let counts = try pumpingCounts([scope.key], in: db).first,
                counts.blockedUntil > now.milliseconds
            else { return nil }
            try savePumpingCounts([scope.key], [counts.lifted(at: now.milliseconds)], in: db)
            // What the block stood on: the last hour's codes, now forgiven.
            let hour = counts.rolled(to: now.milliseconds).hour.sliding(now: now.milliseconds, length: ScopeCounts.hour)
            let (region, tenant, channel) = try lastSeen(scope, in: db)
            let decision = PumpingDecision(
                id: SortableID.make(at: now, randomBytes: PumpingDecision.idRandomBytes), at: now, action: .lifted,
                scope: scope, rule: .blocked, sent: hour.sent, verified: hour.verified, allowance: 0, until: now,
                region: region, tenant: tenant, channel: channel)
            try insertDecision(decision, in: db)
            return decision
        }
    }

    /// The region, tenant and channel of the newest decision that named `scope` (the send the
    /// operator saw refused). A scope blocked beside a narrower one that tripped has none of its
    /// own: then a country's region (else none), the default pool and SMS.
    private func lastSeen(_ scope: PumpingScope, in db: Connection) throws -> (String, TenantID, Channel) {
        let seen = try db.row(
            """
            SELECT region, tenant, channel FROM pumping_decisions WHERE scope_kind = ? AND scope = ? AND action != ? \
            ORDER BY id DESC LIMIT 1
            """, [.text(scope.kind.rawValue), .text(scope.name), .text(PumpingDecision.Action.lifted.rawValue)]
        ) { row in (row.text(0), TenantID(unchecked: row.text(1)), try row.text(2, as: Channel.self)) }
        return seen ?? (scope.kind == .country ? scope.name : "", .defaultPool, .sms)
    }
}
