/// The app's proof that an SMS request comes from it: the receipt and secret of the silent push
/// (verifyClient), or a captcha token. Built here from the parts a request carries, by every door.
package enum AppProof: Sendable, Equatable {
    case receipt(receipt: String, secret: String)
    case captcha(token: String)

    /// The longest captcha token taken (reCAPTCHA's are about 2 KB).
    package static let maxTokenBytes = 16_384
    /// The longest receipt or secret taken (the engine's are 43 characters).
    package static let maxReceiptBytes = 128

    /// Exactly one form: a non-empty receipt with its non-empty secret, or a non-empty token of
    /// at most 16 KiB. `field` names the proof in the error (`appVerification`).
    package init(receipt: String?, secret: String?, captchaToken: String?, field: String) throws(PhoneAuthError) {
        switch (receipt, secret, captchaToken) {
        case let (receipt?, secret?, nil)
        where !receipt.isEmpty && !secret.isEmpty && receipt.utf8.count <= Self.maxReceiptBytes
            && secret.utf8.count <= Self.maxReceiptBytes:
            self = .receipt(receipt: receipt, secret: secret)
        case let (nil, nil, token?) where !token.isEmpty && token.utf8.count <= Self.maxTokenBytes:
            self = .captcha(token: token)
        default:
            throw PhoneAuthError(
                .invalidAppCredential,
                "The field '\(field)' must hold either 'receipt' and 'secret', or 'captchaToken' (at most "
                    + "\(Self.maxTokenBytes) bytes).",
                details: [("field", .string(field))])
        }
    }
}
