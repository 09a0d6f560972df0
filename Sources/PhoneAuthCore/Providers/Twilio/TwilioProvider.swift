/// Twilio, over HTTP Basic authentication with the account SID and auth token or an API key SID
/// and secret:
/// - SMS: POST {baseUrl}/2010-04-01/Accounts/{accountSid}/Messages.json, form-encoded To, Body
///   and From (or MessagingServiceSid).
/// - WhatsApp: the same endpoint, To and From as `whatsapp:+E164` (or the messaging service),
///   ContentSid of an approved `whatsapp/authentication` content template and
///   ContentVariables {"1": code}; no Body.
/// - Voice: POST …/Calls.json with To, From and Twiml that says the call's text in its language.
/// A 201 carries the message's or call's `sid`; an error carries Twilio's `code` and `message`.
/// With a receipt URL, each request names it as StatusCallback.
struct TwilioProvider: HTTPProvider {
    static let defaultBaseUrl = "https://api.twilio.com"
    /// Errors that mean the number cannot receive the message: 21211 invalid 'To' number, 21614
    /// not a mobile number, 21610 the recipient replied STOP, 21217 not a valid phone number
    /// (calls), 63003 the WhatsApp address is invalid or inactive, 63024 the recipient cannot
    /// receive this WhatsApp message.
    static let invalidNumberCodes: Set<String> = ["21211", "21614", "21610", "21217", "63003", "63024"]

    let endpoint: HTTPEndpoint
    let accountSid: String
    /// "sid:secret" for Basic authentication (the account's auth token or an API key's secret).
    let credentials: String
    let from: String?
    let messagingServiceSid: String?
    var channels: Set<Channel> = [.sms]
    /// The WhatsApp sender, E.164 without the `whatsapp:` prefix; nil: the messaging service sends.
    var whatsappFrom: String? = nil
    /// The HX… SID of the approved WhatsApp authentication template (Content API).
    var whatsappContentSid: String? = nil
    /// The number calls come from (E.164).
    var voiceFrom: String? = nil
    /// The account's auth token, with which Twilio signs its callbacks (X-Twilio-Signature).
    /// Given as `authToken`: without `apiKeySid` it also signs in; with one, it only checks
    /// callbacks (an API key cannot).
    var authToken: String? = nil
    /// Where Twilio posts the status of each message and call (`receiptUrl`).
    var statusCallbackUrl: String? = nil

    func request(for message: SMSMessage, now: Timestamp) -> HTTPRequest {
        let account = "\(endpoint.baseUrl)/2010-04-01/Accounts/\(PercentEncoding.encode(accountSid))"
        let pairs: [(String, String?)]
        let resource: String
        switch message.channel {
        case .voice where voiceFrom != nil:
            resource = "Calls.json"
            pairs = [
                ("To", message.to), ("From", voiceFrom), ("Twiml", Self.twiml(message)),
                ("StatusCallback", statusCallbackUrl),
                // Without them Twilio tells only of the call's end: an answered call would count
                // as delivered only once it hangs up, after the fallback's time may have passed.
                ("StatusCallbackEvent", statusCallbackUrl.map { _ in "answered" }),
                ("StatusCallbackEvent", statusCallbackUrl.map { _ in "completed" }),
            ]
        case .whatsapp where whatsappContentSid != nil:
            resource = "Messages.json"
            pairs = [
                ("To", "whatsapp:" + message.to), ("From", whatsappFrom.map { "whatsapp:" + $0 }),
                ("MessagingServiceSid", whatsappFrom == nil ? messagingServiceSid : nil),
                ("ContentSid", whatsappContentSid),
                ("ContentVariables", JSONCodec.serialize(.object([("1", .string(message.code))]))),
                ("StatusCallback", statusCallbackUrl),
            ]
        default:
            resource = "Messages.json"
            pairs = [
                ("To", message.to), ("From", from), ("MessagingServiceSid", messagingServiceSid),
                ("Body", message.body), ("StatusCallback", statusCallbackUrl),
            ]
        }
        return post(
            "\(account)/\(resource)", body: form(pairs),
            headers: ["Content-Type: application/x-www-form-urlencoded", "Accept: application/json"],
            basicAuth: credentials)
    }

    /// A second of silence (the callee is still saying hello), then the text once: it already
    /// says the code twice.
    static func twiml(_ message: SMSMessage) -> String {
        let language = XMLText.escaped(VoiceText.voiceLocale(message.languageCode))
        return "<Response><Pause length=\"1\"/><Say language=\"\(language)\">" + XMLText.escaped(message.body)
            + "</Say></Response>"
    }

    /// Status callbacks of messages and calls, signed with the auth token (`TwilioReceipts`).
    func receipts(from request: ReceiptRequest, now: Timestamp) throws(PhoneAuthError) -> [DeliveryReceipt] {
        guard let authToken else { throw ProviderSettings.noSecret(endpoint.name, key: "authToken") }
        return try TwilioReceipts.read(request, authToken: authToken, now: now)
    }

    func interpret(status: Int, body: [UInt8]) -> SMSSendResult {
        let answer = ProviderAnswer.object(body)
        if (200..<300).contains(status) { return .sent(messageId: ProviderAnswer.token(answer?["sid"])) }
        let code = ProviderAnswer.token(answer?["code"])
        if let code, Self.invalidNumberCodes.contains(code) {
            return .invalidNumber(DeliveryProblem(.invalidNumber, providerCode: code, httpStatus: status))
        }
        return .providerFault(DeliveryProblem(.providerFault, providerCode: code, httpStatus: status))
    }
}
