/// Vonage's SMS API: POST {baseUrl}/sms/json, form-encoded api_key, api_secret, from, to (E.164
/// digits without the +) and text, with type=unicode when the text is not GSM-7. The answer is
/// a 200 whose `messages` each have a `status`: "0" sent, anything else a problem.
struct VonageProvider: HTTPProvider {
    static let defaultBaseUrl = "https://rest.nexmo.com"
    /// 6 invalid message (e.g. an unknown number prefix), 7 number barred, 33 number de-activated.
    static let invalidNumberStatuses: Set<String> = ["6", "7", "33"]
    /// 1 throttled, 5 internal error, 10 too many connections: try again later.
    static let transientStatuses: Set<String> = ["1", "5", "10"]

    let endpoint: HTTPEndpoint
    let apiKey: String
    let apiSecret: String
    let from: String

    func request(for message: SMSMessage, now: Timestamp) -> HTTPRequest {
        let to = message.to.hasPrefix("+") ? String(message.to.dropFirst()) : message.to
        let body = form([
            ("api_key", apiKey), ("api_secret", apiSecret), ("from", from), ("to", to), ("text", message.body),
            ("type", message.cost.encoding == .gsm7 ? nil : "unicode"),
        ])
        return post(
            "\(endpoint.baseUrl)/sms/json", body: body,
            headers: ["Content-Type: application/x-www-form-urlencoded", "Accept: application/json"])
    }

    func interpret(status: Int, body: [UInt8]) -> SMSSendResult {
        guard (200..<300).contains(status) else {
            return .providerFault(DeliveryProblem("providerFault", httpStatus: status))
        }
        guard case let .array(parts)? = ProviderAnswer.object(body)?["messages"], !parts.isEmpty else {
            return .providerFault(DeliveryProblem("providerFault", httpStatus: status, detail: "unexpected answer"))
        }
        // A long text goes as several parts; the message is sent when every part is.
        for part in parts {
            guard let code = ProviderAnswer.token(part["status"]) else {
                return .providerFault(DeliveryProblem("providerFault", httpStatus: status, detail: "unexpected answer"))
            }
            if code == "0" { continue }
            if Self.invalidNumberStatuses.contains(code) {
                return .invalidNumber(DeliveryProblem("invalidNumber", providerCode: code, httpStatus: status))
            }
            if Self.transientStatuses.contains(code) {
                return .retryLater(
                    DeliveryProblem(code == "1" ? "rateLimited" : "serverError", providerCode: code, httpStatus: status)
                )
            }
            return .providerFault(DeliveryProblem("providerFault", providerCode: code, httpStatus: status))
        }
        return .sent(messageId: ProviderAnswer.token(parts[0]["message-id"]))
    }
}
