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

    /// The proof a request carries as parts (a receipt and its secret, or a captcha token), by the
    /// rules every door applies: nil when there is none, an ``PhoneAuthError/Code/invalidAppCredential``
    /// error when the parts are not exactly one whole proof.
    public init?(receipt: String?, secret: String?, captchaToken: String?) throws(PhoneAuthError) {
        guard receipt != nil || secret != nil || captchaToken != nil else { return nil }
        do {
            switch try AppProof(receipt: receipt, secret: secret, captchaToken: captchaToken, field: "appVerification")
            {
            case let .receipt(receipt, secret): self = .pushReceipt(receipt: receipt, secret: secret)
            case let .captcha(token): self = .captchaToken(token)
            }
        } catch {
            throw PhoneAuthError(error)
        }
    }

    /// The engine's proof, checked by the same rules as every other door's.
    func core() throws(PhoneAuthCore.PhoneAuthError) -> AppProof {
        switch self {
        case let .pushReceipt(receipt, secret):
            return try AppProof(receipt: receipt, secret: secret, captchaToken: nil, field: "appVerification")
        case let .captchaToken(token):
            return try AppProof(receipt: nil, secret: nil, captchaToken: token, field: "appVerification")
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
