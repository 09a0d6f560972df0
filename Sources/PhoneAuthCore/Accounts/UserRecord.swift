/// A user as the store keeps it and every door shows it (UserRecord+Dialects renders it).
package struct UserRecord: Sendable, Hashable {
    package var uid: String
    package var phoneNumber: String?
    package var displayName: String?
    package var disabled: Bool
    package var createdAt: Timestamp
    package var lastSignInAt: Timestamp?
    package var validSince: Timestamp?
    /// JSON object text set by setCustomUserClaims; every new ID token carries its members.
    package var customClaims: String? = nil
    /// Second factors, in enrolment order.
    package var factors: [EnrolledFactor] = []
    /// Passkeys, oldest first.
    package var passkeys: [Passkey] = []
    /// The pool it lives in, for ever (a uid is unique across pools).
    package var tenant: TenantID
}
