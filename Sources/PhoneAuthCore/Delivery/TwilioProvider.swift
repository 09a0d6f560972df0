/// Twilio Programmable Messaging: POST {baseUrl}/2010-04-01/Accounts/{accountSid}/Messages.json,
/// form-encoded To, Body and From (or MessagingServiceSid), HTTP Basic authentication with the
/// account SID and auth token or an API key SID and secret. A 201 carries the message's `sid`; an
/// error carries Twilio's `code` and `message`.
struct TwilioProvider: HTTPProvider {
    static let defaultBaseUrl = "https://api.twilio.com"
    /// Errors that mean the number cannot receive this SMS: 21211 invalid 'To' number, 21614 not a
    /// mobile number, 21610 the recipient replied STOP.
    static let invalidNumberCodes: Set<String> = ["21211", "21614", "21610"]

    let endpoint: HTTPEndpoint
    let accountSid: String
    /// "sid:secret" for Basic authentication (the account's auth token or an API key's secret).
    let credentials: String
    let from: String?
    let messagingServiceSid: String?

    func request(for message: SMSMessage, now: Timestamp) -> HTTPRequest {
        let url = "\(endpoint.baseUrl)/2010-04-01/Accounts/\(PercentEncoding.encode(accountSid))/Messages.json"
        let body = form([
            ("To", message.to), ("From", from), ("MessagingServiceSid", messagingServiceSid), ("Body", message.body),
        ])
        return post(
            url, body: body, headers: ["Content-Type: application/x-www-form-urlencoded", "Accept: application/json"],
            basicAuth: credentials)
    }

    func interpret(status: Int, body: [UInt8]) -> SMSSendResult {
        let answer = ProviderAnswer.object(body)
        if (200..<300).contains(status) { return .sent(messageId: ProviderAnswer.token(answer?["sid"])) }
        let code = ProviderAnswer.token(answer?["code"])
        if let code, Self.invalidNumberCodes.contains(code) {
            return .invalidNumber(DeliveryProblem("invalidNumber", providerCode: code, httpStatus: status))
        }
        return .providerFault(DeliveryProblem("providerFault", providerCode: code, httpStatus: status))
    }
}
