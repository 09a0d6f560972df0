/// The errors of tripped limits.
enum LimitErrors {
    static func error(_ trip: LimitTrip) -> PhoneAuthError {
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
