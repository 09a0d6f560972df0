/// Where a verification is in its life, as its `state` column holds it.
package enum VerificationState: String, Sendable, CaseIterable {
    /// Its code may still be checked (until it expires).
    case active
    /// Too many wrong codes were tried.
    case dead
    /// Its code signed in, linked or enrolled: it is consumed.
    case used
    /// A newer verification of the same number and purpose took its place.
    case replaced
}
