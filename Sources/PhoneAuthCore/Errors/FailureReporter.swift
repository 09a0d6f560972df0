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

    /// A passkey's signature counter did not go up: its authenticator may have been cloned (or two
    /// of its assertions with the same count arrived at once). Its user and credential are named,
    /// for the operator to look at; the sign-in is refused and reported as any other.
    func counterWentBack(_ passkey: Passkey, presented: UInt32?, clientIp: ClientAddress?, now: Timestamp) {
        events.emit(
            .passkeyCounterWentBack, at: now,
            [
                ("uid", .string(passkey.uid)), ("tenantId", passkey.tenant.named.map { .string($0) }),
                ("credentialId", .string(passkey.id)), ("storedCount", .int(Int64(passkey.signCount))),
                ("presentedCount", presented.map { .int(Int64($0)) }), ("clientIp", clientIp.map { .string($0.text) }),
            ])
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

    /// The error of a new code refused because wrong codes locked `phone`, after reporting it as
    /// the tripped limit it is.
    func numberLocked(_ phone: PhoneNumber, until: Timestamp, now: Timestamp) -> PhoneAuthError {
        let error = Self.lockedNumberError(until: until, now: now)
        events.emit(
            .limitTripped, at: now,
            [
                ("limit", .string(LimitName.maxConsecutiveFailures.rawValue)), ("scope", .string(phone.masked)),
                ("retryAfterSeconds", error.detail("retryAfterSeconds")),
            ])
        return error
    }

    /// Tells of a send the pumping defense refused, or flagged in record mode.
    func pumpingSuspected(_ decision: PumpingDecision) {
        events.emit(.pumpingSuspected, at: decision.at, decision.fields)
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

    /// The error of a number locked by wrong codes until `until`.
    static func lockedNumberError(until: Timestamp, now: Timestamp) -> PhoneAuthError {
        PhoneAuthError(
            .tooManyRequests, "Too many wrong codes in a row for this number; it is locked until \(until.rfc3339).",
            details: [
                ("reason", .string("numberLocked")),
                ("retryAfterSeconds", .int(max(1, (until.milliseconds - now.milliseconds + 999) / 1000))),
            ])
    }
}
