/// Why a verification (or a temporary proof) can no longer be used, as errors' `reason` names it.
package enum UnusableCodeReason: String, Sendable, CaseIterable {
    case expired
    case tooManyAttempts
    case alreadyUsed
    case replaced
    /// Started for another purpose, or another user's enrolment or challenge.
    case wrongPurpose
    /// A temporary proof whose number now belongs to another user (or to none).
    case ownerChanged
}
