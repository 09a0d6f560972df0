/// Users and their factors in the JSON shape of `firebase auth:export` (times as Firebase writes
/// them: milliseconds as strings, customAttributes as JSON text), which exportUsers writes.
/// phoneauthd's lookup answers in the Identity Toolkit shape from PhoneAuthKit's types.
package enum FirebaseUser {
    /// The user as auth:export writes it: no session fields, only the phone second factors (a
    /// TOTP secret never leaves the store).
    package static func exportJSON(_ user: UserRecord) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("localId", .string(user.uid))
        o.set("phoneNumber", user.phoneNumber.map { .string($0) })
        o.set("displayName", user.displayName.map { .string($0) })
        o.set("disabled", .bool(user.disabled))
        o.set("createdAt", .string(String(user.createdAt.milliseconds)))
        o.set("lastSignedInAt", user.lastSignInAt.map { .string(String($0.milliseconds)) })
        o.set("customAttributes", user.customClaims.map { .string($0) })
        o.set("tenantId", user.tenant.named.map { .string($0) })
        o.set(
            "providerUserInfo",
            .array(
                user.phoneNumber.map { phone in
                    [
                        .object([
                            ("providerId", .string("phone")), ("rawId", .string(phone)),
                            ("phoneNumber", .string(phone)),
                        ])
                    ]
                } ?? []))
        let factors = user.factors.filter { $0.factorId == .phone }
        if !factors.isEmpty { o.set("mfaInfo", .array(factors.map(factor))) }
        return o.value
    }

    /// A phone second factor as `mfaInfo` lists it.
    static func factor(_ f: EnrolledFactor) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("mfaEnrollmentId", .string(f.enrollmentId))
        o.set("displayName", f.displayName.map { .string($0) })
        o.set("enrolledAt", .string(f.enrolledAt.rfc3339))
        o.set("phoneInfo", .string(f.phoneNumber ?? ""))
        return o.value
    }
}
