/// The events outbox (EventStore), and the recording of events inside each change's transaction.
extension SQLStore {
    /// Records an event of `type` about `subject` (a uid, or a phone number) in the transaction
    /// `db`, as `{id, type, timestamp, data}`; nothing without the `events` configuration.
    func record(
        _ type: EventType, subject: String, _ data: @autoclosure () -> [(String, JSONValue?)], at now: Timestamp,
        in db: Connection
    )
        throws
    {
        guard events != nil else { return }
        // The ID's time is taken now, in the transaction (not the operation's start, which may
        // lie before waits and retries): it orders the subject's events.
        let id = EventID.make(at: max(now, SystemClock().now()))
        var object = JSONObjectBuilder()
        for (name, value) in data() { object.set(name, value) }
        let payload: JSONValue = .object([
            ("id", .string(id)), ("type", .string(type.rawValue)), ("timestamp", .string(now.rfc3339)),
            ("data", object.value),
        ])
        // The payload reaches a C host's event handler as stored: jansson writes it (DESIGN.md).
        try db.run(
            "INSERT INTO events (id, subject, type, payload, created_at, due_at) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(id), .text(subject), .text(type.rawValue), .text(JSONCodec.janssonText(payload)),
                .int(now.milliseconds), .int(now.milliseconds),
            ])
        db.recordedEvents = true
    }

    package func onEventsRecorded(_ ring: @escaping @Sendable () -> Void) { eventBell.set(ring) }

    /// A user as events show it (UserRecord+Dialects); numbers masked unless `events.includePhoneNumbers`.
    func eventUser(_ user: UserRecord) -> JSONValue { user.eventJSON(phone: { self.events?.shown($0) }) }

    /// A second factor as events show it, every field present.
    func eventFactor(_ factor: EnrolledFactor) -> JSONValue {
        .object([
            ("uid", .string(factor.enrollmentId)), ("factorId", .string(factor.factorId.rawValue)),
            ("displayName", factor.displayName.map { .string($0) } ?? .null),
            ("phoneNumber", events?.shown(factor.phoneNumber) ?? .null),
            ("enrollmentTime", .string(factor.enrolledAt.rfc3339)),
        ])
    }

    /// sessionRevoked: one session (`session`), or all of the user's (nil).
    func recordRevoked(
        uid: String, session: String?, reason: RevocationReason, at now: Timestamp, in db: Connection
    )
        throws
    {
        try record(
            .sessionRevoked, subject: uid,
            [("uid", .string(uid)), ("sessionId", session.map { .string($0) }), ("reason", .string(reason.rawValue))],
            at: now, in: db)
    }

    package func claimDueEvents(now: Timestamp, limit: Int, lease: DeliveryLease) throws -> [PendingEvent] {
        try write(rowLocksSuffice: true) { db in
            var found: [PendingEvent] = []
            try db.rows(
                """
                SELECT id, subject, type, payload, attempts FROM events e WHERE due_at <= ?
                AND NOT EXISTS (SELECT 1 FROM events p WHERE p.subject = e.subject AND p.id < e.id)
                ORDER BY due_at LIMIT ?\(dialect.skipLocked)
                """, [.int(now.milliseconds), .int(Int64(limit))]
            ) { row in
                found.append(
                    PendingEvent(
                        id: row.text(0), subject: row.text(1), type: row.text(2), payload: row.text(3),
                        attempts: Int(row.int(4))))
            }
            for event in found {
                // While leased, due_at is when the lease runs out and another engine may deliver it.
                try db.run(
                    "UPDATE events SET due_at = ?, lease = ? WHERE id = ?",
                    [.int(lease.until.milliseconds), .text(lease.owner), .text(event.id)])
            }
            return found
        }
    }

    package func recordEventDelivery(
        _ event: PendingEvent, failure: (retryAt: Timestamp, error: String)?, leaseOwner: String
    ) throws {
        try write(rowLocksSuffice: true) { db in
            guard let failure else {
                try db.run("DELETE FROM events WHERE id = ? AND lease = ?", [.text(event.id), .text(leaseOwner)])
                return
            }
            guard
                try db.run(
                    """
                    UPDATE events SET attempts = attempts + 1, due_at = ?, lease = NULL, last_error = ?
                    WHERE id = ? AND lease = ?
                    """,
                    [.int(failure.retryAt.milliseconds), .text(failure.error), .text(event.id), .text(leaseOwner)]) == 1
            else { return }
            // The subject's later events wait behind this one: not due before it, so a claim does
            // not look at them again and again while it fails.
            try db.run(
                "UPDATE events SET due_at = ? WHERE subject = ? AND id > ? AND due_at < ? AND lease IS NULL",
                [
                    .int(failure.retryAt.milliseconds), .text(event.subject), .text(event.id),
                    .int(failure.retryAt.milliseconds),
                ])
        }
    }

    package func releaseEvents(ids: [String], now: Timestamp, leaseOwner: String) throws {
        guard !ids.isEmpty else { return }
        try write(rowLocksSuffice: true) { db in
            for id in ids {
                try db.run(
                    "UPDATE events SET due_at = ?, lease = NULL WHERE id = ? AND lease = ?",
                    [.int(now.milliseconds), .text(id), .text(leaseOwner)])
            }
        }
    }

    package func nextEventDue() throws -> Timestamp? {
        try read { db in
            try db.row(
                """
                SELECT due_at FROM events e
                WHERE NOT EXISTS (SELECT 1 FROM events p WHERE p.subject = e.subject AND p.id < e.id)
                ORDER BY due_at LIMIT 1
                """
            ) { Timestamp(milliseconds: $0.int(0)) }
        }
    }

    package func pendingEvents() throws -> (count: Int64, oldest: Timestamp?) {
        try read { try pendingEvents(in: $0) }
    }

    func pendingEvents(in db: Connection) throws -> (count: Int64, oldest: Timestamp?) {
        try db.row("SELECT count(*), min(created_at) FROM events") {
            ($0.int(0), $0.optionalInt(1).map { Timestamp(milliseconds: $0) })
        } ?? (0, nil)
    }

    package func listPendingEvents(afterId: String?, subject: String?, limit: Int) throws -> [WaitingEvent] {
        try read { db in
            var events: [WaitingEvent] = []
            // A subject's own events are read through events_by_subject (subject, id).
            let (filter, values): (String, [SQLValue]) =
                subject.map { ("subject = ? AND ", [.text($0)]) } ?? ("", [])
            try db.rows(
                """
                SELECT id, type, subject, attempts, last_error, created_at, due_at FROM events WHERE \(filter)id > ?
                ORDER BY id LIMIT ?
                """, values + [.text(afterId ?? ""), .int(Int64(limit))]
            ) { row in
                events.append(
                    WaitingEvent(
                        id: row.text(0), type: row.text(1), subject: row.text(2), attempts: Int(row.int(3)),
                        lastError: row.optionalText(4), createdAt: Timestamp(milliseconds: row.int(5)),
                        dueAt: Timestamp(milliseconds: row.int(6))))
            }
            return events
        }
    }

    package func dropPendingEvent(id: String, now: Timestamp) throws -> Bool {
        try write { db in
            guard let subject = try db.row("SELECT subject FROM events WHERE id = ?", [.text(id)], { $0.text(0) })
            else { return false }
            try db.run("DELETE FROM events WHERE id = ?", [.text(id)])
            // The events it held back are due at once, not at its retry time.
            try db.run(
                "UPDATE events SET due_at = ? WHERE subject = ? AND due_at > ? AND lease IS NULL",
                [.int(now.milliseconds), .text(subject), .int(now.milliseconds)])
            return true
        }
    }
}
