#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PhoneAuthCore

/// A second factor of an account: a phone number that receives codes, or a TOTP authenticator.
public struct SecondFactor: Sendable, Hashable {
    /// Names the factor in `unenroll(idToken:enrollmentID:)` and in a challenge's
    /// hints.
    public let enrollmentID: String
    /// `phone` or `totp`.
    public let factorId: String
    /// The name the user gave the factor.
    public let displayName: String?
    /// The number, E.164 on an account and masked to its last four digits in a challenge's hints.
    public let phoneNumber: String?
    /// When it was enrolled.
    public let enrolledAt: Date

    init(_ factor: EnrolledFactor) {
        enrollmentID = factor.enrollmentId
        factorId = factor.factorId.rawValue
        displayName = factor.displayName
        phoneNumber = factor.phoneNumber
        enrolledAt = Date(factor.enrolledAt)
    }

    /// A hint of a secondFactorRequired error.
    init(hint: JSONValue) {
        enrollmentID = hint["uid"]?.stringValue ?? ""
        factorId = hint["factorId"]?.stringValue ?? FactorKind.phone.rawValue
        displayName = hint["displayName"]?.stringValue
        phoneNumber = hint["phoneNumber"]?.stringValue
        enrolledAt = Date(
            hint["enrollmentTime"]?.stringValue.flatMap { Timestamp(rfc3339: $0) } ?? Timestamp(milliseconds: 0))
    }
}
