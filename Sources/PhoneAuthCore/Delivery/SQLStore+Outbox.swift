/// The SMS outbox, kept in the verifications' rows: leases, outcomes, retries.
extension SQLStore {
    package func claimDueMessages(now: Timestamp, limit: Int, lease: DeliveryLease) throws -> [OutboxMessage] {
        // Rows are claimed with their row locks (FOR UPDATE SKIP LOCKED with PostgreSQL), each
        // by one worker; the outbox's bookkeeping never joins serializable conflict tracking.
        try write(rowLocksSuffice: true) { db in
            var messages: [OutboxMessage] = []
            try db.rows(
                """
                SELECT id, phone, language_code, sealed_body, delivery_attempts, purpose, expires_at FROM verifications
                WHERE delivery IN ('pending', 'sending') AND due_at <= ? AND state = 'active' AND expires_at > ?
                ORDER BY due_at LIMIT ?\(dialect.skipLocked)
                """, [.int(now.milliseconds), .int(now.milliseconds), .int(Int64(limit))]
            ) { row in
                messages.append(
                    OutboxMessage(
                        verificationId: row.text(0), phone: row.text(1), languageCode: row.text(2),
                        sealedBody: row.blob(3), attempts: Int(row.int(4)),
                        purpose: try row.text(5, as: VerificationPurpose.self),
                        expiresAt: Timestamp(milliseconds: row.int(6))))
            }
            // A code that can no longer be used is not worth an SMS: give those messages up, with
            // the reason a worker gives one that expired in its queue (a verification used, locked
            // or replaced before its SMS went ended otherwise).
            try db.run(
                """
                UPDATE verifications SET delivery = 'failed', sealed_body = NULL,
                delivery_error = CASE WHEN expires_at <= ? THEN 'expired' ELSE 'verificationEnded' END
                WHERE delivery IN ('pending', 'sending') AND due_at <= ? AND (state != 'active' OR expires_at <= ?)
                """, [.int(now.milliseconds), .int(now.milliseconds), .int(now.milliseconds)])
            for m in messages {
                // While leased, due_at is when the lease runs out and another worker may retry it.
                try db.run(
                    "UPDATE verifications SET delivery = 'sending', due_at = ?, delivery_lease = ? WHERE id = ?",
                    [.int(lease.until.milliseconds), .text(lease.owner), .text(m.verificationId)])
            }
            return messages
        }
    }

    package func recordDeliveries(
        _ outcomes: [DeliveryOutcome], now: Timestamp, maxAttempts: Int, leaseOwner: String
    ) throws {
        let leased = "delivery = 'sending' AND delivery_lease = ?"
        let owner = SQLValue.text(leaseOwner)
        guard let first = outcomes.first else { return }
        func record(_ outcome: DeliveryOutcome, in db: Connection) throws {
            switch outcome {
            case let .sent(id, provider, messageId):
                try db.run(
                    """
                    UPDATE verifications SET delivery = 'sent', sealed_body = NULL, \
                    delivery_attempts = delivery_attempts + 1,
                    delivery_provider = ?, delivery_message_id = ?, delivery_error = NULL WHERE id = ? AND \(leased)
                    """, [.optionalText(provider), .optionalText(messageId), .text(id), owner])
            case let .failed(id, provider, reason, retryAt):
                // Only a message this engine still holds: one whose lease ran out is another's now.
                guard
                    let done = try db.row(
                        "SELECT delivery_attempts FROM verifications WHERE id = ? AND \(leased)",
                        [.text(id), owner], { Int($0.int(0)) })
                else { return }
                let attempts = done + 1
                let givenUp = attempts >= maxAttempts
                try db.run(
                    """
                    UPDATE verifications SET delivery = ?, sealed_body = \(givenUp ? "NULL" : "sealed_body"), \
                    delivery_attempts = ?,
                    due_at = ?, delivery_provider = ?, delivery_error = ? WHERE id = ? AND \(leased)
                    """,
                    [
                        .text(givenUp ? "failed" : "pending"), .int(Int64(attempts)), .int(retryAt.milliseconds),
                        .optionalText(provider), .text(reason), .text(id), owner,
                    ])
            case let .undeliverable(id, provider, reason):
                try db.run(
                    """
                    UPDATE verifications SET delivery = 'failed', sealed_body = NULL, \
                    delivery_attempts = delivery_attempts + 1,
                    delivery_provider = ?, delivery_error = ? WHERE id = ? AND \(leased)
                    """, [.optionalText(provider), .text(reason), .text(id), owner])
            case let .deferred(id, until):
                try db.run(
                    "UPDATE verifications SET delivery = 'pending', due_at = ? WHERE id = ? AND \(leased)",
                    [.int(until.milliseconds), .text(id), owner])
            }
        }
        // The usual report, one message sent, is one statement: atomic without BEGIN and COMMIT.
        if outcomes.count == 1, case .sent = first {
            try writeSingle { db in try record(first, in: db) }
            return
        }
        try write(rowLocksSuffice: true) { db in
            for outcome in outcomes { try record(outcome, in: db) }
        }
    }

    package func nextDeliveryDue() throws -> Timestamp? {
        try read { db in
            try db.row("SELECT min(due_at) FROM verifications WHERE delivery IN ('pending', 'sending')") {
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
                    "UPDATE verifications SET delivery = 'pending', due_at = ? "
                        + "WHERE id = ? AND delivery = 'sending' AND delivery_lease = ?",
                    [.int(now.milliseconds), .text(id), .text(leaseOwner)]) == 1
            }
        }
    }

    package func renewLeases(verificationIds: [String], lease: DeliveryLease) throws {
        guard !verificationIds.isEmpty else { return }
        try write(rowLocksSuffice: true) { db in
            for id in verificationIds {
                try db.run(
                    "UPDATE verifications SET due_at = ? WHERE id = ? AND delivery = 'sending' AND delivery_lease = ?",
                    [.int(lease.until.milliseconds), .text(id), .text(lease.owner)])
            }
        }
    }
}
