/// The outbox, kept in the verifications' rows (each row's current delivery): leases, outcomes,
/// retries, fallbacks; and `deliveries`, the earlier deliveries a resend or a fallback replaced.
extension SQLStore {
    /// The states of a row whose message is still the outbox's business.
    /// Word for word the condition of the index verifications_due, so the planner uses it.
    static var outboxStates: String { "(\(queuedStates) OR \(awaitingState))" }

    /// A message not sent yet: due, or leased to a worker (a condition verifications_due serves).
    static var queuedStates: String {
        "delivery IN (\(DeliveryState.pending.sqlLiteral), \(DeliveryState.sending.sqlLiteral))"
    }

    /// A sent message waiting for its receipt, or its fallback (a condition verifications_due serves).
    private static var awaitingState: String { "delivery = \(DeliveryState.awaiting.sqlLiteral)" }

    package func claimDueMessages(
        now: Timestamp, limit: Int, lease: DeliveryLease, fallback: FallbackPolicy
    ) throws -> (messages: [OutboxMessage], unconfirmed: [UnconfirmedDelivery]) {
        // Rows are claimed with their row locks (FOR UPDATE SKIP LOCKED with PostgreSQL), each
        // by one worker; the outbox's bookkeeping never joins serializable conflict tracking.
        try write(rowLocksSuffice: true) { db in
            let due = try dueRows(now: now, limit: limit, in: db)
            // A code that can no longer be used is not worth a message: give those messages up,
            // with the reason a worker gives one that expired in its queue (a verification used,
            // locked or replaced before its message went ended otherwise); a sent one awaiting
            // its receipt needs no fallback any more.
            try db.run(
                """
                UPDATE verifications SET delivery = ?, sealed_body = NULL,
                delivery_error = CASE WHEN expires_at <= ? THEN ? ELSE ? END
                WHERE \(Self.queuedStates) AND due_at <= ? AND (state != ? OR expires_at <= ?)
                """,
                [
                    .text(DeliveryState.failed), .int(now.milliseconds), .text(DeliveryFailureReason.expired),
                    .text(DeliveryFailureReason.verificationEnded), .int(now.milliseconds),
                    .text(VerificationState.active), .int(now.milliseconds),
                ])
            try db.run(
                """
                UPDATE verifications SET delivery = ?, fallback = NULL
                WHERE \(Self.awaitingState) AND due_at <= ? AND (state != ? OR expires_at <= ?)
                """,
                [
                    .text(DeliveryState.sent), .int(now.milliseconds), .text(VerificationState.active),
                    .int(now.milliseconds),
                ])
            var messages: [OutboxMessage] = []
            var unconfirmed: [UnconfirmedDelivery] = []
            for (message, awaiting, to, provider, messageId) in due {
                guard awaiting else {
                    // While leased, due_at is when the lease runs out and another worker may retry it.
                    try db.run(
                        "UPDATE verifications SET delivery = ?, due_at = ?, delivery_lease = ? WHERE id = ?",
                        [
                            .text(DeliveryState.sending), .int(lease.until.milliseconds), .text(lease.owner),
                            .text(message.verificationId),
                        ])
                    messages.append(message)
                    continue
                }
                // No receipt said it arrived in time: the same code goes by the fallback channel.
                guard let to else { continue }
                let next = try fallBack(message, to: to, now: now, lease: lease, fallback, in: db)
                if let next { messages.append(next) }
                // The row is claimed under its lock, so this engine alone decides it and tells of it.
                unconfirmed.append(
                    UnconfirmedDelivery(
                        message: message, provider: provider, messageId: messageId, fallback: next?.channel))
            }
            return (messages, unconfirmed)
        }
    }

    /// A due outbox row: its message, whether it was sent and awaits its receipt, its fallback
    /// channel, and who took it (with its ID there).
    private typealias DueRow = (
        message: OutboxMessage, awaiting: Bool, fallback: Channel?, provider: String?, messageId: String?
    )

    /// The rows due by `now`, locked for this claim, earliest first.
    private func dueRows(now: Timestamp, limit: Int, in db: Connection) throws -> [DueRow] {
        var due: [DueRow] = []
        try db.rows(
            """
            SELECT id, phone, language_code, sealed_body, delivery_attempts, purpose, expires_at, channel, \
            delivery_seq, tenant, delivery, fallback, asked_language, delivery_provider, delivery_message_id \
            FROM verifications
            WHERE \(Self.outboxStates) AND due_at <= ? AND state = ? AND expires_at > ?
            ORDER BY due_at LIMIT ?\(dialect.skipLocked)
            """,
            [.int(now.milliseconds), .text(VerificationState.active), .int(now.milliseconds), .int(Int64(limit))]
        ) { row in
            due.append(
                (
                    OutboxMessage(
                        verificationId: row.text(0), phone: row.text(1), languageCode: row.text(2),
                        askedLanguage: row.optionalText(12),
                        sealedCode: row.optionalBlob(3) ?? [], channel: try row.text(7, as: Channel.self),
                        seq: Int(row.int(8)), tenant: TenantID(unchecked: row.text(9)),
                        attempts: Int(row.int(4)), purpose: try row.text(5, as: VerificationPurpose.self),
                        expiresAt: Timestamp(milliseconds: row.int(6))),
                    try row.text(10, as: DeliveryState.self) == .awaiting,
                    try row.optionalText(11, as: Channel.self), row.optionalText(13), row.optionalText(14)
                ))
        }
        return due
    }

    /// Moves `message`'s verification to its next delivery, by `channel`, unless a limit refuses:
    /// the message to send (leased with `lease`; without one it is due now for any worker), or
    /// nil when the limits refused it (the delivery is left as it was, its fallback spent) or
    /// another engine decided it first.
    func fallBack(
        _ message: OutboxMessage, to channel: Channel, now: Timestamp, lease: DeliveryLease?,
        _ fallback: FallbackPolicy, in db: Connection
    ) throws -> OutboxMessage? {
        let limits = fallback.limits(phone: message.phone, channel: channel)
        if try checkSendLimits(limits, now: now, in: db) != nil {
            try db.run(
                """
                UPDATE verifications SET fallback = NULL, delivery = CASE WHEN delivery = ? THEN ? ELSE delivery END \
                WHERE id = ? AND delivery_seq = ?
                """,
                [
                    .text(DeliveryState.awaiting), .text(DeliveryState.sent), .text(message.verificationId),
                    .int(Int64(message.seq)),
                ])
            return nil
        }
        // Keyed by the delivery it replaces: two engines deciding the same fallback (a receipt
        // and the timer, or two receipts) move it once.
        guard try keepAsEarlier(message.verificationId, seq: message.seq, now: now, in: db) else { return nil }
        try db.run(
            """
            UPDATE verifications SET channel = ?, fallback = NULL, delivery = ?, due_at = ?, delivery_lease = ?,
            delivery_attempts = 0, delivery_seq = delivery_seq + 1, delivery_provider = NULL,
            delivery_message_id = NULL, delivery_error = NULL, delivery_error_code = NULL
            WHERE id = ?
            """,
            [
                .text(channel.rawValue), .text(lease == nil ? DeliveryState.pending : DeliveryState.sending),
                .int(lease?.until.milliseconds ?? now.milliseconds), lease.map { .text($0.owner) } ?? .null,
                .text(message.verificationId),
            ])
        try countSend(limits, now: now, in: db)
        var next = message
        next.channel = channel
        next.seq += 1
        next.attempts = 0
        return next
    }

    /// Only a message this engine still holds, in the delivery it was sent for: one whose lease
    /// ran out is another's now, and one a resend or fallback replaced is over. Its parameters
    /// are `held(owner, seq)`'s. (Computed, so that it is a constant, not a lazily initialised global.)
    private static var leased: String { "delivery = ? AND delivery_lease = ? AND delivery_seq = ?" }

    /// The values `leased` binds: the message `owner` holds, in its delivery `seq`.
    private static func held(_ owner: SQLValue, _ seq: Int) -> [SQLValue] {
        [.text(DeliveryState.sending), owner, .int(Int64(seq))]
    }

    @_specialize(where Connection == SQLiteConnection)
    package func recordDeliveries(
        _ outcomes: [(outcome: DeliveryOutcome, message: OutboxMessage)], now: Timestamp, maxAttempts: Int,
        leaseOwner: String, fallback: FallbackPolicy
    ) throws -> [OutboxMessage] {
        let owner = SQLValue.text(leaseOwner)
        guard let first = outcomes.first else { return [] }
        // The usual report, one message sent, is one statement: atomic without BEGIN and COMMIT.
        if outcomes.count == 1, case let .sent(_, provider, messageId) = first.outcome {
            try writeSingle { db in
                try recordSent(
                    first.message, provider: provider, messageId: messageId, now: now, owner: owner, fallback, in: db)
            }
            return []
        }
        return try write(rowLocksSuffice: true) { db in
            var fellBack: [OutboxMessage] = []
            for (outcome, message) in outcomes {
                switch outcome {
                case let .sent(_, provider, messageId):
                    try recordSent(
                        message, provider: provider, messageId: messageId, now: now, owner: owner, fallback, in: db)
                case let .failed(_, provider, reason, retryAt):
                    if let next = try recordFailure(
                        message, provider: provider, reason: reason, retryAt: retryAt, now: now,
                        maxAttempts: maxAttempts, leaseOwner: leaseOwner, fallback, in: db)
                    {
                        fellBack.append(next)
                    }
                case let .undeliverable(_, provider, reason):
                    if let next = try giveUp(
                        message, provider: provider, reason: reason, now: now, leaseOwner: leaseOwner, fallback, in: db)
                    {
                        fellBack.append(next)
                    }
                case let .deferred(_, until):
                    // Every provider of the channel is skipped (an outage): a message with another
                    // channel goes by it now rather than wait until its code expires.
                    if let next = try fallBackUnsent(message, leaseOwner: leaseOwner, now: now, fallback, in: db) {
                        fellBack.append(next)
                        continue
                    }
                    try db.run(
                        "UPDATE verifications SET delivery = ?, due_at = ? WHERE id = ? AND \(Self.leased)",
                        [.text(DeliveryState.pending), .int(until.milliseconds), .text(message.verificationId)]
                            + Self.held(owner, message.seq))
                }
            }
            return fellBack
        }
    }

    /// A sent message: with a fallback and a time for it, it awaits its receipt until then;
    /// the code stays, for a fallback or a resend.
    private func recordSent(
        _ message: OutboxMessage, provider: String?, messageId: String?, now: Timestamp, owner: SQLValue,
        _ fallback: FallbackPolicy, in db: Connection
    ) throws {
        try db.run(
            """
            UPDATE verifications SET \
            delivery = CASE WHEN fallback IS NOT NULL AND ? = 1 THEN ? ELSE ? END,
            due_at = ?, delivery_attempts = delivery_attempts + 1, delivery_provider = ?, delivery_message_id = ?,
            delivery_error = NULL WHERE id = ? AND \(Self.leased)
            """,
            [
                .int(fallback.afterMilliseconds > 0 ? 1 : 0), .text(DeliveryState.awaiting), .text(DeliveryState.sent),
                .int(now.adding(milliseconds: fallback.afterMilliseconds).milliseconds),
                .optionalText(provider), .optionalText(messageId), .text(message.verificationId),
            ] + Self.held(owner, message.seq))
    }

    /// A failed try: retried at `retryAt`, or given up (giveUp) once it was the last of
    /// `maxAttempts`; the message that falls back, if any. Nothing when this engine no longer
    /// holds the message.
    private func recordFailure(
        _ message: OutboxMessage, provider: String?, reason: DeliveryFailureReason, retryAt: Timestamp, now: Timestamp,
        maxAttempts: Int, leaseOwner: String, _ fallback: FallbackPolicy, in db: Connection
    ) throws -> OutboxMessage? {
        let id = SQLValue.text(message.verificationId)
        let held = Self.held(.text(leaseOwner), message.seq)
        guard
            let done = try db.row(
                "SELECT delivery_attempts FROM verifications WHERE id = ? AND \(Self.leased)", [id] + held,
                { Int($0.int(0)) })
        else { return nil }
        let attempts = done + 1
        if attempts >= maxAttempts {
            return try giveUp(
                message, provider: provider, reason: reason, now: now, leaseOwner: leaseOwner, fallback, in: db)
        }
        try db.run(
            """
            UPDATE verifications SET delivery = ?, delivery_attempts = ?,
            due_at = ?, delivery_provider = ?, delivery_error = ? WHERE id = ? AND \(Self.leased)
            """,
            [
                .text(DeliveryState.pending), .int(Int64(attempts)), .int(retryAt.milliseconds),
                .optionalText(provider), .text(reason), id,
            ] + held)
        return nil
    }

    /// A delivery that will never arrive: its verification falls back to its next channel when
    /// it has one the limits allow (the message returned, due now for any worker), else its
    /// delivery has failed (nil, as when this engine no longer holds it).
    private func giveUp(
        _ message: OutboxMessage, provider: String?, reason: DeliveryFailureReason, now: Timestamp, leaseOwner: String,
        _ fallback: FallbackPolicy, in db: Connection
    ) throws -> OutboxMessage? {
        // Only a message this engine still holds; only a code that can still be used is worth
        // another channel.
        guard
            let to = try db.row(
                """
                UPDATE verifications SET delivery = ?, delivery_attempts = delivery_attempts + 1,
                delivery_provider = ?, delivery_error = ?
                WHERE id = ? AND \(Self.leased)
                RETURNING CASE WHEN state = ? AND expires_at > ? THEN fallback END
                """,
                [.text(DeliveryState.failed), .optionalText(provider), .text(reason), .text(message.verificationId)]
                    + Self.held(.text(leaseOwner), message.seq)
                    + [.text(VerificationState.active), .int(now.milliseconds)],
                { row in try row.optionalText(0, as: Channel.self) })
        else { return nil }
        if let to, let next = try fallBack(message, to: to, now: now, lease: nil, fallback, in: db) { return next }
        try db.run(
            "UPDATE verifications SET fallback = NULL WHERE id = ? AND delivery_seq = ?",
            [.text(message.verificationId), .int(Int64(message.seq))])
        return nil
    }

    /// A message no provider could take, which this engine holds, moved to its fallback channel
    /// (due now, for any worker) when it has one the limits allow.
    private func fallBackUnsent(
        _ message: OutboxMessage, leaseOwner: String, now: Timestamp, _ fallback: FallbackPolicy, in db: Connection
    ) throws -> OutboxMessage? {
        guard
            let to = try db.row(
                """
                SELECT fallback FROM verifications WHERE id = ? AND \(Self.leased) AND state = ? AND expires_at > ?
                """,
                [.text(message.verificationId)] + Self.held(.text(leaseOwner), message.seq)
                    + [.text(VerificationState.active), .int(now.milliseconds)],
                { row in try row.optionalText(0, as: Channel.self) }) ?? nil
        else { return nil }
        try db.run(
            "UPDATE verifications SET delivery_error = ? WHERE id = ?",
            [.text(DeliveryFailureReason.providersSkipped), .text(message.verificationId)])
        return try fallBack(message, to: to, now: now, lease: nil, fallback, in: db)
    }

    /// Keeps the current delivery `seq` of a verification among its earlier ones, as it stands
    /// (a message never taken by a provider as replaced): false when it is no longer current, or
    /// another engine kept it first, so only one moves the verification on.
    func keepAsEarlier(_ id: String, seq: Int, now: Timestamp, in db: Connection) throws -> Bool {
        try db.run(
            """
            INSERT INTO deliveries (verification_id, seq, channel, provider, message_id, status, error, error_code, \
            replaced_at, updated_at)
            SELECT id, delivery_seq, channel, delivery_provider, delivery_message_id,
                   CASE WHEN delivery IN (?, ?) THEN ? WHEN delivery = ? THEN ? ELSE delivery END,
                   delivery_error, delivery_error_code, ?, ?
            FROM verifications WHERE id = ? AND delivery_seq = ?
            ON CONFLICT (verification_id, seq) DO NOTHING
            """,
            [
                .text(DeliveryState.pending), .text(DeliveryState.sending), .text(DeliveryState.replaced),
                .text(DeliveryState.awaiting), .text(DeliveryState.sent), .int(now.milliseconds),
                .int(now.milliseconds), .text(id), .int(Int64(seq)),
            ]) == 1
    }

    package func nextDeliveryDue() throws -> Timestamp? {
        try read { db in
            try db.row("SELECT min(due_at) FROM verifications WHERE \(Self.outboxStates)") {
                $0.optionalInt(0).map { Timestamp(milliseconds: $0) }
            } ?? nil
        }
    }

    @discardableResult
    package func releaseLeases(verificationIds: [String], now: Timestamp, leaseOwner: String) throws -> [String] {
        guard !verificationIds.isEmpty else { return [] }
        return try write(rowLocksSuffice: true) { db in
            try verificationIds.filter { id in
                try db.run(
                    "UPDATE verifications SET delivery = ?, due_at = ? WHERE id = ? AND delivery = ? "
                        + "AND delivery_lease = ?",
                    [
                        .text(DeliveryState.pending), .int(now.milliseconds), .text(id), .text(DeliveryState.sending),
                        .text(leaseOwner),
                    ]) == 1
            }
        }
    }

    package func renewLeases(verificationIds: [String], lease: DeliveryLease) throws {
        guard !verificationIds.isEmpty else { return }
        try write(rowLocksSuffice: true) { db in
            for id in verificationIds {
                try db.run(
                    "UPDATE verifications SET due_at = ? WHERE id = ? AND delivery = ? AND delivery_lease = ?",
                    [.int(lease.until.milliseconds), .text(id), .text(DeliveryState.sending), .text(lease.owner)])
            }
        }
    }
}
