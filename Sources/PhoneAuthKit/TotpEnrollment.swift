#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PhoneAuthCore

/// An authenticator app being enrolled: what to show the user, and the session that
/// `finishTotpEnrollment(idToken:enrollment:code:displayName:)` completes.
///
/// The secret is a secret: a description never shows it, and it leaves the engine only here.
public struct TotpEnrollment: Sendable, CustomStringConvertible {
    /// The secret in base32, for typing into the app.
    public let secretKey: String
    /// An `otpauth://totp/...` URI holding the secret, for a QR code.
    public let otpauthURI: String
    /// When the enrolment must be finished by.
    public let expiresAt: Date
    let session: String

    init(_ started: PhoneAuthCore.MultiFactorService.TotpEnrollmentStarted) {
        secretKey = started.secretKey
        otpauthURI = started.otpauthUri
        expiresAt = Date(started.expiresAt)
        session = started.sessionInfo
    }

    /// The expiry only: the secret is a secret.
    public var description: String { "TotpEnrollment(expiresAt: \(expiresAt))" }
}
