/// A temporary proof: a verification of a number, created without SMS, whose code is a secret
/// handed to the caller.
package struct TemporaryProof: Sendable {
    package var verificationId: String
    package var codeHash: [UInt8]
    package var expiresAt: Timestamp
}
