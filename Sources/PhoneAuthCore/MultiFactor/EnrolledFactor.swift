/// A second factor of a user: a phone number that receives codes, or a TOTP authenticator.
package struct EnrolledFactor: Sendable, Hashable {
    package var enrollmentId: String
    package var factorId: FactorKind
    package var displayName: String?
    package var phoneNumber: String?
    package var enrolledAt: Timestamp
}
