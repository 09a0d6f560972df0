/// What a verification's code may be used for. A code sent for one purpose is refused for any other.
package enum VerificationPurpose: String, Sendable, CaseIterable {
    /// First-factor sign-in, linking, phone number change, re-authentication.
    case signIn
    /// Enrolling the number as a second factor of the user named by `subject`.
    case enroll
    /// The second factor of the multi-factor session named by `subject`.
    case mfaSignIn
    /// A temporary proof (no SMS; the code is a secret) that signs in the user `subject`, who
    /// had the number when the proof was made.
    case temporaryProof
}
