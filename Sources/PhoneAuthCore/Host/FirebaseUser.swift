/// Users, factors and sign-ins in the JSON shapes of Identity Toolkit and of `firebase
/// auth:export` (times as Firebase writes them: milliseconds as strings, validSince as seconds,
/// customAttributes as JSON text). phoneauthd answers in them; exportUsers writes them.
package enum FirebaseUser {
    /// The user as Identity Toolkit's lookup answers it, or (`export`) as auth:export writes it:
    /// `lastSignedInAt` for `lastLoginAt`, no session fields, only the phone second factors (a
    /// TOTP secret never leaves the store).
    package static func json(_ user: UserRecord, export: Bool = false) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("localId", .string(user.uid))
        o.set("phoneNumber", user.phoneNumber.map { .string($0) })
        o.set("displayName", user.displayName.map { .string($0) })
        o.set("disabled", .bool(user.disabled))
        o.set("createdAt", .string(String(user.createdAt.milliseconds)))
        o.set(export ? "lastSignedInAt" : "lastLoginAt", user.lastSignInAt.map { .string(String($0.milliseconds)) })
        if !export {
            o.set("lastRefreshAt", user.lastSignInAt.map { .string(rfc3339Millis($0)) })
            o.set("validSince", .string(String((user.validSince ?? user.createdAt).seconds)))
        }
        o.set("customAttributes", user.customClaims.map { .string($0) })
        o.set("providerUserInfo", .array(user.phoneNumber.map { phone in
            [.object([("providerId", .string("phone")), ("rawId", .string(phone)), ("phoneNumber", .string(phone))])]
        } ?? []))
        let factors = export ? user.factors.filter { $0.factorId == "phone" } : user.factors
        if !factors.isEmpty { o.set("mfaInfo", .array(factors.map { factor($0, masked: false) })) }
        return o.value
    }

    /// A second factor as `mfaInfo` lists it; hints before the second step show the number masked.
    package static func factor(_ f: EnrolledFactor, masked: Bool) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("mfaEnrollmentId", .string(f.enrollmentId))
        o.set("displayName", f.displayName.map { .string($0) })
        o.set("enrolledAt", .string(rfc3339Millis(f.enrolledAt)))
        if let phone = f.phoneNumber {
            o.set("phoneInfo", .string(masked ? PhoneNumber.mask(phone) : phone))
        } else {
            o.set("totpInfo", .object([]))
        }
        return o.value
    }

    /// A completed sign-in as verifyPhoneNumber and signInWithCustomToken answer it.
    package static func signIn(_ r: SignInResult, kind: String) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("kind", .string("identitytoolkit#\(kind)"))
        o.set("idToken", .string(r.idToken))
        o.set("refreshToken", .string(r.refreshToken))
        o.set("expiresIn", .string(String(r.expiresIn)))
        o.set("localId", .string(r.user.uid))
        o.set("isNewUser", .bool(r.isNewUser))
        o.set("phoneNumber", r.user.phoneNumber.map { .string($0) })
        return o.value
    }

    /// The tokens only, as the multi-factor endpoints answer (no expiresIn: the clients refresh).
    package static func tokens(_ r: SignInResult) -> JSONValue {
        .object([("idToken", .string(r.idToken)), ("refreshToken", .string(r.refreshToken))])
    }

    /// RFC 3339 with milliseconds, as Google's APIs write timestamps.
    package static func rfc3339Millis(_ t: Timestamp) -> String {
        let millis = String(1000 + (t.milliseconds % 1000 + 1000) % 1000).dropFirst()
        return String(t.rfc3339.dropLast()) + ".\(millis)Z"
    }
}
