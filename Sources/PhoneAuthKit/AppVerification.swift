import PhoneAuthCore

/// Proof that a request to send an SMS comes from the app, not an abuser's script: required
/// once a push sender or a captcha verifier is installed (or `appVerification.enforce` is set).
public enum AppVerification: Sendable {
    /// The receipt and secret of the silent push that `verifyClient(appToken:tokenType:clientIP:)`
    /// had sent to the app.
    case pushReceipt(receipt: String, secret: String)
    /// A captcha token that the installed captcha verifier checks
    /// (`setCaptchaVerifier(_:)`).
    case captchaToken(String)

    var core: Engine.AppProof {
        switch self {
        case let .pushReceipt(receipt, secret): return .receipt(receipt: receipt, secret: secret)
        case let .captchaToken(token): return .captcha(token: token)
        }
    }
}

/// A silent push for the app, for the host's push sender (`setPushSender(_:)`) to deliver
/// through APNs or FCM.
public struct VerificationPush: Sendable {
    /// The app's push token.
    public let appToken: String
    /// `prod`, `sandbox` or `unknown` (the APNs environment).
    public let tokenType: String
    /// The notification's payload, as JSON text: it holds the receipt's secret, so send it only
    /// to the app and never log it.
    public let payloadJSON: String
}
