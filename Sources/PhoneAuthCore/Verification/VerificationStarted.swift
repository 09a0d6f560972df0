/// What verifyPhoneNumber returns.
package struct VerificationStarted: Sendable {
    package let verificationId: String
    package let codeLength: Int
    package let expiresAt: Timestamp
    package let resendAt: Timestamp
    /// The channel the code goes by (nil for a test number, which sends nothing).
    package let channel: Channel?
}
