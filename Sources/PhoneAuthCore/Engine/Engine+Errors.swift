/// The errors the engine's outcomes stand for, and the events that report them.
extension Engine {
    /// The error of a rejected code, after reporting it (and a limit or lockout it tripped).
    func rejected(_ rejection: CodeRejection, clientIp: ClientAddress?, now: Timestamp) -> PhoneAuthError {
        switch rejection {
        case let .limited(trip): return limitError(trip, now: now)
        case let .numberLocked(phone, until, justLocked) where justLocked:
            events.emit(.lockout, at: now, [("phoneNumber", .string(PhoneNumber.mask(phone))),
                                            ("until", .string(until.rfc3339)),
                                            ("lockoutSeconds", .int((until.milliseconds - now.milliseconds) / 1000)),
                                            ("clientIp", clientIp.map { .string($0.text) })])
        default: break
        }
        return reported(Self.error(rejection, now: now), clientIp: clientIp, now: now)
    }

    /// Reports a failed sign-in (`signInFailed`) and returns its error.
    func reported(_ error: PhoneAuthError, clientIp: ClientAddress?, now: Timestamp) -> PhoneAuthError {
        let reason = error.details.first(where: { $0.0 == "reason" })?.1
        events.emit(.signInFailed, at: now, [("code", .string(error.code.name)), ("reason", reason),
                                             ("clientIp", clientIp.map { .string($0.text) })])
        return error
    }

    /// The error of a tripped limit, after reporting it.
    func limitError(_ trip: LimitTrip, now: Timestamp) -> PhoneAuthError {
        events.emit(.limitTripped, at: now, [("limit", .string(trip.limit.rawValue)), ("scope", .string(trip.scope)),
                                             ("retryAfterSeconds", .int(trip.retryAfterSeconds))])
        return Self.error(trip)
    }

    static func error(_ trip: LimitTrip) -> PhoneAuthError {
        PhoneAuthError(trip.isQuota ? .quotaExceeded : .tooManyRequests,
                       "The limit \(trip.limit.rawValue) is reached for \(trip.scope); "
                           + "try again in \(trip.retryAfterSeconds) seconds.",
                       details: [("reason", .string("rateLimit")), ("limit", .string(trip.limit.rawValue)),
                                 ("scope", .string(trip.scope)), ("retryAfterSeconds", .int(trip.retryAfterSeconds))])
    }

    static func numberLocked(until: Timestamp, now: Timestamp) -> PhoneAuthError {
        PhoneAuthError(.tooManyRequests, "Too many wrong codes in a row for this number; it is locked until \(until.rfc3339).",
                       details: [("reason", .string("numberLocked")),
                                 ("retryAfterSeconds", .int(max(1, (until.milliseconds - now.milliseconds + 999) / 1000)))])
    }

    static func error(_ rejection: CodeRejection, now: Timestamp) -> PhoneAuthError {
        switch rejection {
        case let .limited(trip): return error(trip)
        case let .numberLocked(_, until, _): return numberLocked(until: until, now: now)
        case let .wrongCode(left):
            let message = left == 0 ? "The verification code is not correct, and no tries are left: request a new code."
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
            return PhoneAuthError(.sessionExpired, messages[reason] ?? "The verification can no longer be used.",
                                  details: [("reason", .string(reason.rawValue))])
        case .unknown:
            return PhoneAuthError(.invalidVerificationID, "No verification has this ID.", details: [("reason", .string("unknown"))])
        }
    }

    static func error(_ refusal: AccountRefusal) -> PhoneAuthError {
        switch refusal {
        case .sessionEnded:
            return PhoneAuthError(.invalidUserToken, "The session of this ID token has ended (signed out or revoked); sign in again.",
                                  details: [("reason", .string("sessionEnded"))])
        case .userNotFound: return noUser
        case .userDisabled: return disabledUser
        case .providerAlreadyLinked:
            return PhoneAuthError(.providerAlreadyLinked, "The account already has a phone number; use updatePhoneNumber to change it.")
        case .noSuchProvider: return PhoneAuthError(.noSuchProvider, "The account has no credential of this provider.")
        case .userMismatch: return PhoneAuthError(.userMismatch, "The credential belongs to another user (or to none) than the signed-in one.")
        case .credentialAlreadyInUse: return PhoneAuthError(.credentialAlreadyInUse, "Another account already has this phone number.")
        case .unsupportedFirstFactor:
            return PhoneAuthError(.unsupportedFirstFactor,
                                  "A phone number is either a first factor (a user's sign-in number) or an SMS second factor, never both.")
        case .secondFactorAlreadyEnrolled:
            return PhoneAuthError(.secondFactorAlreadyEnrolled, "This phone number is already one of the user's second factors.")
        case .maximumSecondFactorCountExceeded:
            return PhoneAuthError(.maximumSecondFactorCountExceeded, "The user already has the maximum number of second factors (mfa.maxFactors).")
        case .invalidMultiFactorSession:
            return PhoneAuthError(.invalidMultiFactorSession, "The multi-factor session is unknown, expired or already used; sign in again.")
        case .multiFactorInfoNotFound:
            return PhoneAuthError(.multiFactorInfoNotFound, "The user has no second factor with this enrollment ID.")
        }
    }
}
