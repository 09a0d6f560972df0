package enum RefreshOutcome: Sendable {
    /// The session moved to the token's next generation, with the new secret hash.
    case rotated(SessionInfo)
    /// The token was the previous generation, presented again within the reuse interval: the
    /// current generation's token, whose secret is `sealedSecret`, is handed out again.
    case reissued(SessionInfo, generation: Int64, sealedSecret: [UInt8])
    case unknown
    /// `userDisabled`: whether its user is disabled now (a session ended by disabling may outlive it).
    case revoked(reason: RevocationReason, userDisabled: Bool)
    case userDisabled
}
