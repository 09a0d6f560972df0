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

/// Each refusal's error: a code refused and what the caller is told are read together.
extension CodeRejection {
    /// The error the refusal stands for, as every door reports it.
    func error(now: Timestamp) -> PhoneAuthError {
        switch self {
        case let .limited(trip): return FailureReporter.error(of: trip)
        case let .numberLocked(_, until, _): return FailureReporter.lockedNumberError(until: until, now: now)
        case let .wrongCode(left):
            let message =
                left == 0
                ? "The verification code is not correct, and no tries are left: request a new code."
                : "The verification code is not correct."
            return PhoneAuthError(.invalidVerificationCode, message, details: [("attemptsLeft", .int(Int64(left)))])
        case let .unusable(reason):
            let messages: [UnusableCodeReason: String] = [
                .expired: "The code has expired; request a new one.",
                .tooManyAttempts: "Too many wrong codes were tried; request a new code.",
                .alreadyUsed: "This code was already used; request a new one.",
                .replaced: "A newer code was sent to this number; use that one.",
                .wrongPurpose: "This verification was started for another purpose (sign-in, enrolment, or another "
                    + "user's or challenge's second factor) and cannot be used here.",
            ]
            return PhoneAuthError(
                .sessionExpired, messages[reason] ?? "The verification can no longer be used.",
                details: [("reason", .string(reason.rawValue))])
        case .unknown:
            return PhoneAuthError(
                .invalidVerificationID, "No verification has this ID.", details: [("reason", .string("unknown"))])
        }
    }
}
