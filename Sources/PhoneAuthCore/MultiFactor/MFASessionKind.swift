/// What a pending multi-factor session is for, as its `kind` column holds it.
package enum MFASessionKind: String, Sendable, CaseIterable {
    /// A first factor passed; a second is awaited.
    case signIn
    /// A TOTP secret was handed out; the first code from it enrols it.
    case totpEnrollment
}
