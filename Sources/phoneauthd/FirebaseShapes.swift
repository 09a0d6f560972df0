#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PhoneAuthCore
import PhoneAuthKit

/// PhoneAuthKit's results in the JSON shapes Identity Toolkit answers with (times as Firebase
/// writes them: milliseconds as strings, validSince as seconds, enrolledAt as RFC 3339).
enum FirebaseShapes {
    /// The user as `accounts:lookup` answers it.
    static func user(_ user: User) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("localId", .string(user.uid))
        o.set("phoneNumber", user.phoneNumber.map { .string($0) })
        o.set("displayName", user.displayName.map { .string($0) })
        o.set("disabled", .bool(user.disabled))
        o.set("createdAt", .string(String(milliseconds(user.createdAt))))
        o.set("lastLoginAt", user.lastSignInAt.map { .string(String(milliseconds($0))) })
        o.set("lastRefreshAt", user.lastSignInAt.map { .string(rfc3339($0)) })
        o.set("validSince", .string(String(milliseconds(user.tokensValidAfter ?? user.createdAt) / 1000)))
        o.set("customAttributes", user.customClaimsJSON.map { .string($0) })
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
        if !user.secondFactors.isEmpty { o.set("mfaInfo", .array(user.secondFactors.map(factor))) }
        // The JS SDK takes `user.tenantId` from here and refuses a user of another tenant than its own.
        o.set("tenantId", user.tenantID.map { .string($0) })
        return o.value
    }

    /// A second factor as `mfaInfo` lists it (a challenge's hints have the number masked already).
    static func factor(_ factor: SecondFactor) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("mfaEnrollmentId", .string(factor.enrollmentID))
        o.set("displayName", factor.displayName.map { .string($0) })
        o.set("enrolledAt", .string(rfc3339(factor.enrolledAt)))
        if factor.factorId == "phone" {
            o.set("phoneInfo", .string(factor.phoneNumber ?? ""))
        } else {
            o.set("totpInfo", .object([]))
        }
        return o.value
    }

    /// A completed sign-in as verifyPhoneNumber and signInWithCustomToken answer it.
    static func signIn(_ r: SignInResult, kind: String) -> JSONValue {
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
    static func tokens(_ r: SignInResult) -> JSONValue {
        .object([("idToken", .string(r.idToken)), ("refreshToken", .string(r.refreshToken))])
    }

    /// The answer to a first factor whose user has second factors: the pending credential and
    /// the hints, numbers masked.
    static func pendingCredential(_ challenge: MultiFactorChallenge) -> JSONValue {
        .object([
            ("mfaPendingCredential", .string(challenge.session)), ("mfaInfo", .array(challenge.hints.map(factor))),
        ])
    }

    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    private static func rfc3339(_ date: Date) -> String { Timestamp(milliseconds: milliseconds(date)).rfc3339 }
}
