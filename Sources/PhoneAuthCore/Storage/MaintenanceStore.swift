/// The store as a whole: its counts, the retention purge, statistics and closing.
/// Part of `Store`; SQLStore implements it (SQLStore+Status, SQLStore+Retention, SQLStore) (see Storage/Store.swift).
package protocol MaintenanceStore: AnyObject, Sendable {
    /// Counts for operators (SQLStore+Status).
    func status(now: Timestamp) throws -> StoreStatus
    /// Deletes verifications that expired before `verificationsExpiredBefore` (their SMS finished),
    /// sessions that ended before `sessionsEndedBefore`, expired multi-factor sessions and spent
    /// limit counters; erases the sealed codes of verifications made since `codesMadeSince` that
    /// expired before `codesExpiredBefore` (the codes of those that ended otherwise went when
    /// they ended). Runs of wrong codes are kept until a right code or an admin ends them.
    func purge(
        verificationsExpiredBefore: Timestamp, sessionsEndedBefore: Timestamp, codesMadeSince: Timestamp,
        codesExpiredBefore: Timestamp
    ) throws
    /// Statements, transactions and retries since the store opened.
    func statistics() -> StoreStatistics
    func close()
}
