/// An SMS service spoken to over HTTP. It builds its request and reads the answers that mean
/// something particular to it; `HTTPSender` handles what every HTTP service means the same way.
protocol HTTPProvider: Sendable {
    var endpoint: HTTPEndpoint { get }
    /// The channels this provider carries (its entry's `channels`).
    var channels: Set<Channel> { get }
    /// The request for `message`, on one of `channels`.
    func request(for message: SMSMessage, now: Timestamp) -> HTTPRequest
    /// The meaning of an answer that is not a 429 or a 5xx.
    func interpret(status: Int, body: [UInt8]) -> SMSSendResult
    /// The receipts in a callback this provider sent, once its signature is checked; a precise
    /// error (`invalidArgument`, details `reason`) for an unsigned, forged, stale or unreadable one.
    func receipts(from request: ReceiptRequest, now: Timestamp) throws(PhoneAuthError) -> [DeliveryReceipt]
    /// The answer to the provider's check that `url` (with its query) is its callback URL, when
    /// the provider makes one (Meta's); a precise error otherwise.
    func subscriptionChallenge(url: String) throws(PhoneAuthError) -> String
}

extension HTTPProvider {
    var channels: Set<Channel> { [.sms] }

    func receipts(from request: ReceiptRequest, now: Timestamp) throws(PhoneAuthError) -> [DeliveryReceipt] {
        throw ReceiptRefusal.noReceipts.error(
            "The provider '\(endpoint.name)' sends no delivery receipts.", field: "provider")
    }

    func subscriptionChallenge(url: String) throws(PhoneAuthError) -> String {
        throw ReceiptRefusal.unsupported.error(
            "The provider '\(endpoint.name)' makes no subscription check.", field: "provider")
    }

    func post(_ url: String, body: [UInt8], headers: [String], basicAuth: String? = nil) -> HTTPRequest {
        endpoint.post(url, body: body, headers: headers, basicAuth: basicAuth)
    }

    func form(_ pairs: [(String, String?)]) -> [UInt8] { HTTPEndpoint.form(pairs) }
}

/// Sends through one HTTP provider: its request over the shared libcurl handles, and what the
/// answer means. No answer, a 429 and a 5xx are worth another try later (after Retry-After when
/// given); a TLS failure is a fault of the configuration, so the next provider gets the message.
final class HTTPSender: SMSSender, Sendable {
    let provider: HTTPProvider
    private let client: HTTPClient
    private let clock: Clock

    init(_ provider: HTTPProvider, client: HTTPClient, clock: Clock) {
        self.provider = provider
        self.client = client
        self.clock = clock
    }

    func send(_ message: SMSMessage) -> SMSSendResult {
        switch client.post(provider.request(for: message, now: clock.now())) {
        case let .failed(failure, description):
            switch failure {
            case .tls: return .providerFault(DeliveryProblem(.tlsError, detail: description))
            case .unusable: return .providerFault(DeliveryProblem(.providerFault, detail: description))
            case .timeout: return .retryLater(DeliveryProblem(.timeout, detail: description))
            case .connection: return .retryLater(DeliveryProblem(.connectionFailed, detail: description))
            }
        case let .answered(status, body, retryAfter):
            let wait = retryAfter.map { Int64(min($0, 3600)) * 1000 }
            if status == 429 {
                return .retryLater(DeliveryProblem(.rateLimited, httpStatus: status, retryAfterMs: wait))
            }
            if status >= 500 {
                return .retryLater(DeliveryProblem(.serverError, httpStatus: status, retryAfterMs: wait))
            }
            return provider.interpret(status: status, body: body)
        }
    }
}

/// Reading a provider's JSON answer, which may be anything.
enum ProviderAnswer {
    static func object(_ body: [UInt8]) -> JSONValue? {
        guard let value = try? body.withUnsafeBytes({ buffer in try JSONCodec.parse(bytes: buffer) }),
            case .object = value
        else { return nil }
        return value
    }

    /// A code or ID from an answer, kept only if it is a short plain token (it goes into events).
    static func token(_ value: JSONValue?) -> String? {
        let text: String?
        switch value {
        case let .string(s)?: text = s
        case let .int(i)?: text = String(i)
        default: text = nil
        }
        // Letters, digits, '_', '.', '-' (Vonage's IDs start with a digit) and base64's '=', '+'
        // and '/' (WhatsApp's wamid): nothing that could smuggle a body or markup into a log line.
        guard let text, (1...128).contains(text.utf8.count),
            text.utf8.allSatisfy({ byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                    || [95, 46, 45, 61, 43, 47].contains(byte)
            })
        else { return nil }
        return text
    }
}
