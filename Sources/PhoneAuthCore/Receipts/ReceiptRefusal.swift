/// Why a provider's callback was refused: reportDelivery's and confirmSubscription's
/// invalidArgument `details.reason`, and phoneauthd's receipt route's own refusals.
package enum ReceiptRefusal: String, Sendable, CaseIterable {
    /// The callback carries no signature.
    case missingSignature
    /// Its signature does not hold under the entry's secret (or a subscription check's token is
    /// not the configured one).
    case badSignature
    /// Its signature was made too long ago.
    case stale
    /// It cannot be read.
    case malformed
    /// A kind of callback, or of signature, PhoneAuth does not read.
    case unsupported
    /// The provider entry sends no receipts.
    case noReceipts
    /// No sms.providers entry has that name.
    case unknownProvider
    /// phoneauthd's own: the body is larger than it takes, or did not arrive whole.
    case tooLarge, incomplete

    /// The refusal of a callback whose `field` is at fault.
    package func error(_ message: String, field: String) -> PhoneAuthError {
        PhoneAuthError(.invalidArgument, message, details: [("field", .string(field)), ("reason", .string(rawValue))])
    }

    /// The HTTP status phoneauthd answers the provider with: 403 for a signature that does not
    /// hold, 400 for a callback it cannot read, 404 for a provider it does not know.
    package var httpStatus: Int {
        switch self {
        case .missingSignature, .badSignature, .stale: 403
        case .malformed, .unsupported: 400
        case .noReceipts, .unknownProvider: 404
        case .tooLarge: 413
        case .incomplete: 408
        }
    }
}
