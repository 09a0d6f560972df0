/// Why a session ended, as its `revoked_reason` column and errors' `reason` name it.
package enum RevocationReason: String, Sendable, CaseIterable {
    case signedOut
    /// A refresh token that was already rotated away was presented again.
    case reused
    /// The user's sessions were revoked.
    case revoked
    case userDisabled
}
