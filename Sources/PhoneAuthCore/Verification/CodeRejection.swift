/// Why a one-time code (SMS or TOTP) was not accepted.
package enum CodeRejection: Error, Sendable {
    case wrongCode(attemptsLeft: Int)
    case unusable(reason: UnusableCodeReason)
    case unknown
    /// Too many wrong codes from the caller's IP address.
    case limited(LimitTrip)
    /// Too many wrong codes in a row for the number; `justLocked` when this code locked it.
    case numberLocked(phone: String, until: Timestamp, justLocked: Bool)
}
