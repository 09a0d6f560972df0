#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PhoneAuthCore

/// A code on its way: what `verifyPhoneNumber(_:languageCode:clientIP:)` and the
/// second-factor calls return. Keep ``verificationID`` and pair it with the code the user types
/// (`credential(verificationID:verificationCode:)`).
public struct Verification: Sendable, Hashable {
    /// Names the verification; not a secret, but only its code proves the number.
    public let verificationID: String
    /// How many digits the code has.
    public let codeLength: Int
    /// When the code stops working.
    public let expiresAt: Date
    /// Before this time, asking again for the same number returns this verification and sends no
    /// new SMS.
    public let resendAt: Date
    /// The channel the code goes by (nil for a test number, which sends nothing). Asking again
    /// before ``resendAt`` with another channel sends the same code by it ("call me instead").
    public let channel: DeliveryChannel?

    init(_ started: VerificationStarted) {
        verificationID = started.verificationId
        codeLength = started.codeLength
        expiresAt = Date(started.expiresAt)
        resendAt = Date(started.resendAt)
        channel = started.channel.map(DeliveryChannel.init)
    }
}

extension Date {
    init(_ timestamp: Timestamp) {
        self.init(timeIntervalSince1970: Double(timestamp.milliseconds) / 1000)
    }
}
