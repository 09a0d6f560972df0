/// Tells of failed sign-ins, tripped limits and lockouts as events, and returns the errors they
/// stand for: every service that checks a code or a limit reports through it.
struct FailureReporter {
    let events: EventLog

    /// The error of a rejected code, after reporting it (and a limit or lockout it tripped).
    func rejected(_ rejection: CodeRejection, clientIp: ClientAddress?, now: Timestamp) -> PhoneAuthError {
        switch rejection {
        case let .limited(trip): return limitError(trip, now: now)
        case let .numberLocked(phone, until, justLocked) where justLocked:
            events.emit(
                .lockout, at: now,
                [
                    ("phoneNumber", .string(PhoneNumber.mask(phone))),
                    ("until", .string(until.rfc3339)),
                    ("lockoutSeconds", .int((until.milliseconds - now.milliseconds) / 1000)),
                    ("clientIp", clientIp.map { .string($0.text) }),
                ])
        default: break
        }
        return reported(rejection.error(now: now), clientIp: clientIp, now: now)
    }

    /// Reports a failed sign-in (`signInFailed`) and returns its error.
    func reported(_ error: PhoneAuthError, clientIp: ClientAddress?, now: Timestamp) -> PhoneAuthError {
        let reason = error.detail("reason")
        events.emit(
            .signInFailed, at: now,
            [
                ("code", .string(error.code.name)), ("reason", reason),
                ("clientIp", clientIp.map { .string($0.text) }),
            ])
        return error
    }

    /// The error of a tripped limit, after reporting it.
    func limitError(_ trip: LimitTrip, now: Timestamp) -> PhoneAuthError {
        events.emit(
            .limitTripped, at: now,
            [
                ("limit", .string(trip.limit.rawValue)), ("scope", .string(trip.scope)),
                ("retryAfterSeconds", .int(trip.retryAfterSeconds)),
            ])
        return Self.error(of: trip)
    }
}

extension FailureReporter {
    /// The error of a tripped limit: tooManyRequests, or quotaExceeded for a quota.
    static func error(of trip: LimitTrip) -> PhoneAuthError {
        PhoneAuthError(
            trip.isQuota ? .quotaExceeded : .tooManyRequests,
            "The limit \(trip.limit.rawValue) is reached for \(trip.scope); "
                + "try again in \(trip.retryAfterSeconds) seconds.",
            details: [
                ("reason", .string("rateLimit")), ("limit", .string(trip.limit.rawValue)),
                ("scope", .string(trip.scope)), ("retryAfterSeconds", .int(trip.retryAfterSeconds)),
            ])
    }
}
