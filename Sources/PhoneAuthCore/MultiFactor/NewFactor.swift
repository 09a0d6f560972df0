/// A second factor about to be enrolled; `sealedSecret` is a TOTP factor's secret.
package struct NewFactor: Sendable {
    package var enrollmentId: String
    package var factorId: FactorKind
    package var displayName: String?
    package var sealedSecret: [UInt8]? = nil
    package var maxFactors: Int
}
