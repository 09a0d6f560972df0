package struct NewVerification: Sendable {
    package var id: String
    package var phone: String
    package var codeHash: [UInt8]
    package var createdAt: Timestamp
    package var expiresAt: Timestamp
    /// nil for test numbers, which send no SMS.
    package var outbox: NewOutboxMessage?
    /// What the code may be used for, and for whom (see VerificationPurpose).
    package var purpose = VerificationPurpose.signIn
    package var subject: String? = nil
    /// The pool whose sign-in or account change alone may use the code.
    package var tenant: TenantID
    /// The channel its code goes by, and the one it falls back to if that fails.
    package var channel: Channel
    package var fallback: Channel?
    /// The caller named `channel` (not the preference): inside the resend window, an active
    /// verification whose code went by another channel sends it again by this one.
    package var channelAsked: Bool
}
