/// Checks a TOTP code against a user's sealed secret: the time step it matches, if later than `lastStep`.
package typealias TotpCheck = (_ sealedSecret: [UInt8], _ uid: String, _ lastStep: Int64) -> Int64?

/// The second factor presented to complete a challenge.
package enum SecondFactorProof {
    case phone(verificationId: String, codeMatches: ([UInt8]) -> Bool)
    case totp(enrollmentId: String, check: TotpCheck)
}
