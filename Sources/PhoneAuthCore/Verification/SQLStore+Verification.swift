/// What a verification is in the store: starting one (with its SMS queued in the same
/// transaction) and its status. Checking a code against it and consuming it are in
/// SQLStore+CodeCheck.swift.
extension SQLStore {
    @_specialize(where Connection == SQLiteConnection)
    package func startVerification(
        _ v: NewVerification, reuseIfCreatedAfter: Timestamp?, lease: DeliveryLease,
        limits: SendLimits?
    ) throws -> VerificationStart {
        // Every counted send writes the project's counter: sends queue for it rather than
        // conflict over it and run again.
        try write(queue: limits == nil ? nil : "sends") { db in
            let known = try sendState(
                of: v, perNumberPerHour: limits?.perNumberPerHour ?? 0, pumpingKeys: limits?.pumping?.scopeKeys ?? [],
                in: db)
            // A tenant deleted while the call was on its way (still in an engine's cache) gets no
            // code: read here, so a deletion either sees the verification or it sees no tenant.
            guard known.tenantExists else { throw TenantService.notFound(v.tenant) }
            let latest = known.latest
            // A locked number gets nothing, not even the verification it already has.
            if limits != nil, let until = known.lockedUntil, until > v.createdAt { return .numberLocked(until: until) }
            if let latest, let reuseIfCreatedAfter, latest.createdAt > reuseIfCreatedAfter {
                let (id, createdAt, expiresAt, state) = (latest.id, latest.createdAt, latest.expiresAt, latest.state)
                if state == .active && expiresAt > v.createdAt {
                    // "Call me instead": the same code, by the channel now asked for.
                    if v.channelAsked, let resend = latest.resend, resend.channel != v.channel, let limits {
                        return try sendAgain(
                            latest, v, resend, limits: limits, deliveriesThisHour: known.deliveriesThisHour,
                            pumpingCounts: known.pumpingCounts, lease: lease, in: db)
                    }
                    return .reused(id: id, createdAt: createdAt, expiresAt: expiresAt, channel: latest.resend?.channel)
                }
                // Five wrong codes must not buy five more at once: a new code waits for the window.
                if state == .dead { return .blocked(since: createdAt) }
            }
            if let limits, let trip = Self.numberLimit(limits, known.deliveriesThisHour, adding: 1, now: v.createdAt) {
                return .limited(trip)
            }
            if let limits, let trip = try checkSendLimits(limits, now: v.createdAt, in: db) { return .limited(trip) }
            var flagged: PumpingDecision?
            if let check = limits?.pumping,
                let decision = try judgeSend(check, counts: known.pumpingCounts, now: v.createdAt, in: db)
            {
                guard decision.action == .flagged else { return .suspectedPumping(decision) }
                flagged = decision
            }
            // A number has at most one active verification per purpose, its latest: replacing it is
            // one row, however often the number is verified. created_at is kept strictly increasing
            // (a millisecond later than the latest at least), so "latest" is never a tie.
            var createdAt = v.createdAt
            if let latest {
                if latest.state == .active { try replace(latest.id, in: db) }
                createdAt = max(createdAt, latest.createdAt.adding(milliseconds: 1))
            }
            try db.run(
                Self.insertVerification,
                [
                    .text(v.id), .text(v.phone), .blob(v.codeHash), .int(createdAt.milliseconds),
                    .int(v.expiresAt.milliseconds),
                    .text(v.outbox == nil ? DeliveryState.none : DeliveryState.sending),
                    .text(v.outbox?.languageCode ?? ""),
                    v.outbox.map { .blob($0.sealedCode) } ?? .null, .int(lease.until.milliseconds),
                    v.outbox == nil ? .null : .text(lease.owner), .text(v.purpose),
                    Self.optional(v.subject), .text(v.tenant.text), .text(v.channel.rawValue),
                    Self.optional(v.outbox == nil ? nil : v.fallback), Self.optional(v.outbox?.askedLanguage),
                    Self.optional(limits?.pumping?.keys), Self.optional(v.region),
                ])
            if let limits { try countSend(limits, now: v.createdAt, in: db) }
            return .created(flagged: flagged)
        }
    }

    /// A new verification's row (StorageTests checks that SQLite builds no temporary table for it).
    static var insertVerification: String {
        """
        INSERT INTO verifications (id, phone, code_hash, created_at, expires_at, delivery, language_code, sealed_body, \
        due_at, delivery_lease, purpose, subject, tenant, channel, fallback, asked_language, pumping_scopes, region)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    }

    /// The latest verification of a number, as deciding on a new send needs it.
    struct LatestVerification {
        /// What sending its code again needs (nil: it sent nothing, a test number's).
        struct Resend {
            var channel: Channel
            var sealedCode: [UInt8]
            var languageCode: String
            var askedLanguage: String?
            var seq: Int
        }

        var id: String
        var createdAt: Timestamp
        var expiresAt: Timestamp
        var state: VerificationState
        var resend: Resend?
    }

    /// What deciding on a new send needs, read in one statement: the latest verification of the
    /// number for this purpose (and subject) in its tenant, the number's lockout, when
    /// `perNumberPerHour` is set the deliveries of the last hour (their count and the oldest's
    /// time), whether the verification's tenant exists, and the counts of the pumping scopes
    /// `pumpingKeys` names (a statement each would cost as much as the rest).
    private func sendState(
        of v: NewVerification, perNumberPerHour: Int, pumpingKeys: [String], in db: Connection
    ) throws
        -> (
            latest: LatestVerification?, lockedUntil: Timestamp?,
            deliveriesThisHour: (count: Int, oldest: Int64)?, tenantExists: Bool, pumpingCounts: [ScopeCounts]
        )
    {
        try db.row(
            SendStateSQL.statements[dialect.name]![pumpingKeys.count],
            [
                .text(v.phone), .text(v.phone),
                .int(perNumberPerHour > 0 ? v.createdAt.milliseconds - 3_600_000 : Int64.max),
                .text(DeliveryState.none), .text(v.tenant.text), .text(v.tenant.text),
                .text(v.phone), .text(v.purpose), Self.optional(v.subject), .text(v.tenant.text),
            ] + pumpingKeys.map { .text($0) }
        ) { row in
            let latest = try row.optionalText(0).map { id in
                LatestVerification(
                    id: id, createdAt: Timestamp(milliseconds: row.int(1)),
                    expiresAt: Timestamp(milliseconds: row.int(2)),
                    state: try row.text(3, as: VerificationState.self),
                    resend: try row.text(11, as: DeliveryState.self) == .none || row.isNull(8)
                        ? nil
                        : LatestVerification.Resend(
                            channel: try row.text(7, as: Channel.self), sealedCode: row.blob(8),
                            languageCode: row.text(9), askedLanguage: row.optionalText(12), seq: Int(row.int(10))))
            }
            // The count and the oldest time in one value: a scalar subquery has one column.
            let packed = row.optionalInt(5)
            return (
                latest, row.optionalInt(4).map { Timestamp(milliseconds: $0) },
                packed.map { (Int($0 / 100_000_000_000_000), $0 % 100_000_000_000_000) },
                row.optionalInt(6) != nil,
                PumpingSQL.counts(row, at: SendStateSQL.columns, count: pumpingKeys.count)
            )
        } ?? (nil, nil, nil, v.tenant.isDefault, pumpingKeys.map { _ in ScopeCounts() })
    }

    /// The number's limit: refused when `adding` more deliveries would take the hour's over it.
    /// Exact: the number's own deliveries of the last hour (a verification's resends and
    /// fallbacks each count).
    static func numberLimit(
        _ limits: SendLimits, _ thisHour: (count: Int, oldest: Int64)?, adding: Int, now: Timestamp
    ) -> LimitTrip? {
        guard limits.perNumberPerHour > 0, let thisHour, thisHour.count + adding > limits.perNumberPerHour else {
            return nil
        }
        return LimitTrip(
            limit: .smsPerNumberPerHour, scope: PhoneNumber.mask(limits.phone),
            retryAfterSeconds: seconds(thisHour.oldest + 3_600_000 - now.milliseconds), isQuota: false)
    }

    /// Sends an active verification's code again by the channel `v` asks for: its next delivery,
    /// counted by every limit a new one is, and judged by the pumping defense as one.
    private func sendAgain(
        _ latest: LatestVerification, _ v: NewVerification, _ resend: LatestVerification.Resend, limits: SendLimits,
        deliveriesThisHour: (count: Int, oldest: Int64)?, pumpingCounts: [ScopeCounts], lease: DeliveryLease,
        in db: Connection
    ) throws -> VerificationStart {
        if let trip = Self.numberLimit(limits, deliveriesThisHour, adding: 1, now: v.createdAt) {
            return .limited(trip)
        }
        if let trip = try checkSendLimits(limits, now: v.createdAt, in: db) { return .limited(trip) }
        // Another message to the destination: judged and counted as a new code is.
        if let check = limits.pumping,
            let decision = try judgeSend(check, counts: pumpingCounts, now: v.createdAt, in: db),
            decision.action == .refused
        {
            return .suspectedPumping(decision)
        }
        _ = try keepAsEarlier(latest.id, seq: resend.seq, now: v.createdAt, in: db)
        try db.run(
            """
            UPDATE verifications SET channel = ?, fallback = ?, delivery = ?, due_at = ?, delivery_lease = ?,
            delivery_attempts = 0, delivery_seq = delivery_seq + 1, delivery_provider = NULL,
            delivery_message_id = NULL, delivery_error = NULL, delivery_error_code = NULL
            WHERE id = ?
            """,
            [
                .text(v.channel.rawValue), Self.optional(v.fallback), .text(DeliveryState.sending),
                .int(lease.until.milliseconds),
                .text(lease.owner), .text(latest.id),
            ])
        try countSend(limits, now: v.createdAt, in: db)
        return .resent(
            id: latest.id, createdAt: latest.createdAt, expiresAt: latest.expiresAt,
            message: OutboxMessage(
                verificationId: latest.id, phone: v.phone, languageCode: resend.languageCode,
                askedLanguage: resend.askedLanguage, sealedCode: resend.sealedCode, channel: v.channel,
                seq: resend.seq + 1, tenant: v.tenant,
                attempts: 0, purpose: v.purpose, expiresAt: latest.expiresAt))
    }

    /// Ends an active verification a newer one replaces; its code is no longer kept.
    func replace(_ id: String, in db: Connection) throws {
        try db.run(
            "UPDATE verifications SET state = ?, sealed_body = NULL WHERE id = ?",
            [.text(VerificationState.replaced), .text(id)])
    }

    package func verificationStatus(id: String, in pool: Pool, now: Timestamp) throws -> VerificationStatus? {
        try read { db in
            guard
                let (found, seq, errorCode) = try db.row(
                    """
                    SELECT phone, state, expires_at, delivery, delivery_attempts, delivery_provider, \
                    delivery_message_id, delivery_error, channel, delivery_seq, delivery_error_code
                    FROM verifications WHERE id = ? AND tenant = ?
                    """, [.text(id), .text(pool.tenant.text)],
                    { row in
                        let expiresAt = Timestamp(milliseconds: row.int(2))
                        let state = VerificationStatus.State(
                            try row.text(1, as: VerificationState.self), expired: expiresAt <= now)
                        let delivery = try row.text(3, as: DeliveryState.self).shown
                        return (
                            VerificationStatus(
                                id: id, phone: row.text(0), state: state, expiresAt: expiresAt,
                                delivery: delivery.rawValue,
                                attempts: Int(row.optionalInt(4) ?? 0), provider: row.optionalText(5),
                                providerMessageId: row.optionalText(6), deliveryError: row.optionalText(7),
                                channel: delivery == .none ? nil : try row.text(8, as: Channel.self), deliveries: []),
                            row.int(9), row.optionalText(10)
                        )
                    })
            else { return nil }
            var status = found
            guard let channel = status.channel else { return status }
            // Earlier deliveries exist only once a resend or a fallback replaced one.
            if seq > 1 {
                try db.rows(
                    """
                    SELECT channel, status, provider, message_id, error, error_code FROM deliveries
                    WHERE verification_id = ? ORDER BY seq
                    """, [.text(id)]
                ) { row in
                    status.deliveries.append(
                        VerificationStatus.Delivery(
                            channel: try row.text(0, as: Channel.self),
                            status: try row.text(1, as: DeliveryState.self).rawValue,
                            provider: row.optionalText(2), messageId: row.optionalText(3), error: row.optionalText(4),
                            errorCode: row.optionalText(5)))
                }
            }
            status.deliveries.append(
                VerificationStatus.Delivery(
                    channel: channel, status: status.delivery, provider: status.provider,
                    messageId: status.providerMessageId, error: status.deliveryError, errorCode: errorCode))
            return status
        }
    }
}

/// sendState's statement, made once per dialect and number of pumping scopes.
private enum SendStateSQL {
    /// sendState's own columns; the pumping scopes' follow.
    static let columns: Int32 = 13

    /// sendState's statement for each dialect and number of pumping scopes (0 to 3), made once.
    /// Verifications of one number for different purposes (a sign-in, an enrolment, each
    /// challenge) are independent: a sign-in request must not cancel a user's pending second
    /// factor. Scalar subqueries and key lookups: SQLite would materialise a joined subquery.
    static let statements = Dictionary(
        uniqueKeysWithValues: [SQLDialect.sqlite, .postgres].map { dialect in
            (
                dialect.name,
                (0...PumpingSQL.maxScopes).map { count in
                    let (columns, joins) = PumpingSQL.joins(count)
                    return """
                        SELECT v.id, v.created_at, v.expires_at, v.state,
                               (SELECT locked_until FROM number_failures WHERE phone = ?),
                               (SELECT CAST(sum(delivery_seq) * 100000000000000 + min(created_at) AS BIGINT) \
                        FROM verifications WHERE phone = ? AND created_at > ? AND delivery != ?),
                               CASE WHEN ? = '' THEN 1 ELSE (SELECT 1 FROM tenants WHERE id = ?) END,
                               v.channel, v.sealed_body, v.language_code, v.delivery_seq, v.delivery, \
                        v.asked_language\(columns)
                        FROM (SELECT 1) AS one
                        LEFT JOIN verifications v ON v.id = (SELECT id FROM verifications WHERE phone = ? \
                        AND purpose = ? AND subject \(dialect.isNotDistinctFrom) ? AND tenant = ? \
                        ORDER BY created_at DESC LIMIT 1)\(joins)
                        """
                }
            )
        })
}
