/// The errors of multi-factor sign-in whose details the caller acts on.
enum MultiFactorErrors {
    /// A first factor passed for a user with second factors: the details are the resolver's
    /// material (the single-use session and one hint per factor, numbers masked).
    static func secondFactorRequired(_ user: UserRecord, session: String, expiresAt: Timestamp) -> PhoneAuthError {
        PhoneAuthError(
            .secondFactorRequired,
            "The user has second factors: complete the sign-in with one of the hints (mfaResolveSignIn).",
            details: [
                ("session", .string(session)),
                ("expiresAt", .string(expiresAt.rfc3339)),
                ("hints", .array(user.factors.map { $0.json(maskingPhone: true) })),
            ])
    }

    /// Too many wrong TOTP codes in a row for one factor (FactorLockout).
    static func factorLocked(until: Timestamp, now: Timestamp) -> PhoneAuthError {
        PhoneAuthError(
            .tooManyRequests, "Too many wrong codes for this factor; it is locked until \(until.rfc3339).",
            details: [
                ("reason", .string("factorLocked")),
                ("retryAfterSeconds", .int(max(1, (until.milliseconds - now.milliseconds + 999) / 1000))),
            ])
    }

    static let missingSession = PhoneAuthError(
        .missingMultiFactorSession, "A multi-factor session (from the secondFactorRequired error) is required.")
    static let missingInfo = PhoneAuthError(
        .missingMultiFactorInfo, "A second factor is required: a hint's uid, or an assertion.")
}

extension EnrolledFactor {
    /// The factor as getUser lists it and as a hint shows it; a hint shows only the number's last four digits.
    package func json(maskingPhone: Bool) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("uid", .string(enrollmentId))
        o.set("factorId", .string(factorId.rawValue))
        o.set("displayName", displayName.map { .string($0) } ?? .null)
        o.set("phoneNumber", phoneNumber.map { .string(maskingPhone ? PhoneNumber.mask($0) : $0) })
        o.set("enrollmentTime", .string(enrolledAt.rfc3339))
        return o.value
    }
}
