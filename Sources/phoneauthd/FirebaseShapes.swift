#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PhoneAuthCore
import PhoneAuthKit

/// PhoneAuthKit's results in the JSON shapes Identity Toolkit answers with. A user is rendered
/// by the core (`user.record.identityToolkitJSON`), as every door renders its users.
enum FirebaseShapes {
    /// A challenge's hint as `mfaInfo` lists it (the number masked already), as a user's factors are.
    static func hint(_ factor: SecondFactor) -> JSONValue {
        EnrolledFactor.identityToolkitJSON(
            enrollmentId: factor.enrollmentID, kind: factor.factorId == "phone" ? .phone : .totp,
            displayName: factor.displayName, phoneNumber: factor.phoneNumber,
            enrolledAt: Timestamp(milliseconds: milliseconds(factor.enrolledAt)))
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
            ("mfaPendingCredential", .string(challenge.session)), ("mfaInfo", .array(challenge.hints.map(hint))),
        ])
    }

    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

}
