/// The retention purge's SQL (RetentionPurge decides when and with which bounds).
extension SQLStore {
    package func purge(
        verificationsExpiredBefore before: Timestamp, sessionsEndedBefore ended: Timestamp,
        codesMadeSince: Timestamp, codesExpiredBefore now: Timestamp
    ) throws {
        // Deleting what no one uses any more decides nothing: it need not join serializable
        // conflict tracking.
        try write(rowLocksSuffice: true) { db in
            // One engine at a time: the others' purges would only wait for this one's row locks.
            guard try db.tryTransactionLock("purge") else { return }
            // Expired before `before` means created before it: the time-ordered key bounds the scan.
            try db.run(
                "DELETE FROM verifications WHERE id < ? AND expires_at < ? AND delivery NOT IN (?, ?)",
                [.text(SortableID.prefix(before)), .int(before.milliseconds)] + Self.queuedValues)
            try db.run("DELETE FROM deliveries WHERE verification_id < ?", [.text(SortableID.prefix(before))])
            // A code is kept sealed while a fallback or resend may need it. The expired ones go
            // here; the time-ordered key bounds the scan to those made since the last purge's.
            try db.run(
                """
                UPDATE verifications SET sealed_body = NULL WHERE id >= ? AND id < ? AND expires_at < ? \
                AND sealed_body IS NOT NULL AND delivery NOT IN (?, ?)
                """,
                [.text(SortableID.prefix(codesMadeSince)), .text(SortableID.prefix(now)), .int(now.milliseconds)]
                    + Self.queuedValues)
            try db.run("DELETE FROM sessions WHERE revoked_at < ?", [.int(ended.milliseconds)])
            try db.run(
                "DELETE FROM mfa_sessions WHERE id < ? AND expires_at < ?",
                [.text(SortableID.prefix(before)), .int(before.milliseconds)])
            // Used captcha tokens are keyed by their hash, not by time: this one scans (a small table).
            try db.run("DELETE FROM app_checks WHERE expires_at < ?", [.int(before.milliseconds)])
            // So are passkey challenges, which live minutes.
            try db.run("DELETE FROM passkey_challenges WHERE expires_at < ?", [.int(now.milliseconds)])
            // A counter is read until two of its windows have passed: daily ones are kept a day
            // longer than `before` (a day ago), the hourly and shorter ones until `before`.
            try db.run(
                "DELETE FROM counters WHERE bucket < ?", [.int(before.milliseconds - LimitWindow.dayMilliseconds)])
            try db.run(
                "DELETE FROM counters WHERE bucket < ? AND scope NOT LIKE 'project:%' AND scope NOT LIKE 'region:%' "
                    + "AND scope NOT LIKE 'voiceproject:%'",
                [.int(before.milliseconds)])
            // A scope is read until its previous week has passed, a decision is kept 30 days.
            try db.run(
                "DELETE FROM pumping_scopes WHERE week_start < ? AND blocked_until < ?",
                [.int(now.milliseconds - 2 * ScopeCounts.week), .int(now.milliseconds)])
            try db.run(
                "DELETE FROM pumping_decisions WHERE id < ?",
                [.text(SortableID.prefix(now.adding(seconds: -30 * 86_400)))])
        }
    }

    /// A message not sent yet (due, or leased to a worker): the purge leaves its row and code.
    /// Bound, as no index serves `NOT IN` (verifications_due's predicate is the opposite).
    private static var queuedValues: [SQLValue] { [.text(DeliveryState.pending), .text(DeliveryState.sending)] }
}
