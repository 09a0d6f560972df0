/// Verifications: starting one (with its SMS and its send limits) and reading its state.
/// Part of `Store`; SQLStore implements it in this folder's SQL (see Storage/Store.swift).
package protocol VerificationStore: AnyObject, Sendable {
    /// Starts `verification` unless an active one for the same number (and pool) was created after
    /// `reuseIfCreatedAfter` (nil: never reuse); a new one replaces older active ones. The SMS is queued in the same
    /// transaction, already leased to this engine's worker by `lease` (the worker is handed the
    /// message directly; if this process dies, any worker takes it once the lease runs out).
    /// `limits` (nil for test numbers) are checked and counted in the same transaction, so they
    /// hold across threads and processes.
    func startVerification(
        _ verification: NewVerification, reuseIfCreatedAfter: Timestamp?, lease: DeliveryLease,
        limits: SendLimits?
    ) throws -> VerificationStart
    /// The verification `id` if it is of `pool`.
    func verificationStatus(id: String, in pool: Pool, now: Timestamp) throws -> VerificationStatus?
}

/// The verification `startVerification` writes: what the store part takes.
package struct NewVerification: Sendable {
    package var id: String
    package var phone: String
    package var codeHash: [UInt8]
    package var createdAt: Timestamp
    package var expiresAt: Timestamp
    /// nil for test numbers, which send no SMS.
    package var outbox: NewOutboxMessage?
    /// What the code may be used for, and for whom (see VerificationPurpose).
    package var purpose = VerificationPurpose.signIn
    package var subject: String? = nil
    /// The pool whose sign-in or account change alone may use the code.
    package var tenant: TenantID
    /// The channel its code goes by, and the one it falls back to if that fails.
    package var channel: Channel
    package var fallback: Channel?
    /// The caller named `channel` (not the preference): inside the resend window, an active
    /// verification whose code went by another channel sends it again by this one.
    package var channelAsked: Bool
    /// The number's region, kept for the counts per region and channel (getPumpingStatistics).
    package var region: String? = nil
}

/// What `startVerification` did: the store part's answer.
package enum VerificationStart: Sendable {
    /// Written, its message leased to the caller's engine; `flagged`: the pumping defense, in
    /// record mode, would have refused it.
    case created(flagged: PumpingDecision?)
    /// A verification for the same number started inside the resend window: reuse it.
    case reused(id: String, createdAt: Timestamp, expiresAt: Timestamp, channel: Channel?)
    /// The same, its code sent again by the channel asked for: a new delivery, this one leased
    /// to the caller's engine.
    case resent(id: String, createdAt: Timestamp, expiresAt: Timestamp, message: OutboxMessage)
    /// The latest verification, started inside the resend window, died of wrong codes.
    case blocked(since: Timestamp)
    /// A send limit refused it: nothing was written or sent.
    case limited(LimitTrip)
    /// Too many wrong codes in a row for the number: it is locked until then.
    case numberLocked(until: Timestamp)
    /// The pumping defense refused it (its decision is stored): nothing else was written or sent.
    case suspectedPumping(PumpingDecision)
}
