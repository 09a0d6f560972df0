/// A pending multi-factor session: after a first factor or a handed-out TOTP secret.
package struct NewMFASession: Sendable {
    package var id: String
    package var kind: MFASessionKind
    package var expiresAt: Timestamp
    package var sealedSecret: [UInt8]? = nil
}
