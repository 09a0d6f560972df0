/// Where a multi-factor session is in its life, as its `state` column holds it.
enum MFASessionState: String, Sendable, CaseIterable {
    case active
    /// Too many wrong codes were tried.
    case dead
    case used
    /// Its user's sessions ended (signed out everywhere, disabled, revoked).
    case ended
}
