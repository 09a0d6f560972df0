package enum VerificationStart: Sendable {
    case created
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
}
