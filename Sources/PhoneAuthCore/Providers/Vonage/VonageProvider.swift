/// Vonage, over three of its APIs:
/// - SMS API: POST {baseUrl}/sms/json (https://rest.nexmo.com), form-encoded api_key, api_secret,
///   from, to (E.164 digits without the +) and text, with type=unicode when the text is not
///   GSM-7 (no `callback`: its receipts are signed another way, which PhoneAuth does not read).
///   A 200 whose `messages` each have a `status`: "0" sent, anything else a problem.
/// - Messages API (WhatsApp): POST {apiBaseUrl}/v1/messages (https://api.nexmo.com), HTTP Basic
///   authentication with the API key and secret, an authentication template sent as a `custom`
///   message (it has a button). A 202 carries `message_uuid`. Statuses go to the status URL set
///   on the Vonage application.
/// - Voice API: POST {apiBaseUrl}/v1/calls with a JWT of the Vonage application (`VonageJWT`),
///   an NCCO that says the call's text, and `event_url` = the receipt URL. A 201 carries `uuid`.
/// Errors of the Messages API are RFC 7807 objects whose `type` ends in the error's number.
struct VonageProvider: HTTPProvider {
    static let defaultBaseUrl = "https://rest.nexmo.com"
    static let defaultApiBaseUrl = "https://api.nexmo.com"
    /// 6 invalid message (e.g. an unknown number prefix), 7 number barred, 33 number de-activated.
    static let invalidNumberStatuses: Set<String> = ["6", "7", "33"]
    /// 1 throttled, 5 internal error, 10 too many connections: try again later.
    static let transientStatuses: Set<String> = ["1", "5", "10"]
    /// Messages API: 1040 invalid message (an unrecognised prefix), 1050 number barred, 1160 not
    /// in the account's pre-approved destinations.
    static let invalidNumberErrors: Set<String> = ["1040", "1050", "1160"]
    /// Messages API: 1000 throttled; 1030 internal error, 1100 communication failed.
    static let transientErrors: Set<String> = ["1000", "1030", "1100"]

    /// The SMS API's endpoint (`baseUrl`).
    let endpoint: HTTPEndpoint
    let apiKey: String
    let apiSecret: String
    /// The SMS sender; nil when the entry does not carry SMS.
    let from: String?
    var channels: Set<Channel> = [.sms]
    /// The root of the Messages and Voice APIs (`apiBaseUrl`), without a trailing slash.
    var apiBaseUrl = defaultApiBaseUrl
    /// The WhatsApp Business number messages come from (digits).
    var whatsappFrom: String? = nil
    /// Approved authentication templates by message language (`whatsappTemplates`).
    var whatsappTemplates: [String: WhatsAppProvider.Template] = [:]
    /// The number calls come from (digits).
    var voiceFrom: String? = nil
    /// Signs the Voice API's bearer tokens with the Vonage application's key.
    var jwt: VonageJWT? = nil
    /// Where Vonage sends call events (`event_url`).
    var receiptUrl: String? = nil
    /// The account's signature secret, with which Vonage signs its webhooks.
    var signatureSecret: String? = nil

    func request(for message: SMSMessage, now: Timestamp) -> HTTPRequest {
        let to = WhatsAppProvider.digits(message.to)
        switch message.channel {
        case .voice where voiceFrom != nil && jwt != nil:
            var call: [(String, JSONValue)] = [
                ("to", .array([.object([("type", .string("phone")), ("number", .string(to))])])),
                ("from", .object([("type", .string("phone")), ("number", .string(voiceFrom ?? ""))])),
                (
                    "ncco",
                    .array([
                        .object([
                            ("action", .string("talk")), ("text", .string(message.body)),
                            ("language", .string(VoiceText.voiceLocale(message.languageCode))),
                        ])
                    ])
                ),
            ]
            if let receiptUrl { call.append(("event_url", .array([.string(receiptUrl)]))) }
            var headers = ["Content-Type: application/json", "Accept: application/json"]
            // Without a token the call is refused (401), which reads as this provider's fault.
            if let token = jwt?.token(now: now) { headers.append("Authorization: Bearer \(token)") }
            return post(
                "\(apiBaseUrl)/v1/calls", body: Array(JSONCodec.serialize(.object(call)).utf8), headers: headers)
        case .whatsapp where whatsappFrom != nil && !whatsappTemplates.isEmpty:
            let template = WhatsAppProvider.template(for: message.languageCode, in: whatsappTemplates)
            let payload: JSONValue = .object([
                ("message_type", .string("custom")), ("channel", .string("whatsapp")),
                ("from", .string(whatsappFrom ?? "")), ("to", .string(to)),
                (
                    "custom",
                    .object([
                        ("type", .string("template")),
                        ("template", WhatsAppProvider.templateObject(template, code: message.code, withPolicy: true)),
                    ])
                ),
            ])
            return post(
                "\(apiBaseUrl)/v1/messages", body: Array(JSONCodec.serialize(payload).utf8),
                headers: ["Content-Type: application/json", "Accept: application/json"],
                basicAuth: "\(apiKey):\(apiSecret)")
        default:
            let body = form([
                ("api_key", apiKey), ("api_secret", apiSecret), ("from", from), ("to", to), ("text", message.body),
                ("type", message.cost.encoding == .gsm7 ? nil : "unicode"),
            ])
            return post(
                "\(endpoint.baseUrl)/sms/json", body: body,
                headers: ["Content-Type: application/x-www-form-urlencoded", "Accept: application/json"])
        }
    }

    /// Signed webhooks of the Messages and Voice APIs (`VonageReceipts`).
    func receipts(from request: ReceiptRequest, now: Timestamp) throws(PhoneAuthError) -> [DeliveryReceipt] {
        guard let signatureSecret else { throw ProviderSettings.noSecret(endpoint.name, key: "signatureSecret") }
        return try VonageReceipts.read(request, signatureSecret: signatureSecret, now: now)
    }

    func interpret(status: Int, body: [UInt8]) -> SMSSendResult {
        let answer = ProviderAnswer.object(body)
        guard (200..<300).contains(status) else {
            // The Messages API's error type: "https://developer.vonage.com/api-errors/messages#1160".
            var code: String?
            if let type = answer?["type"]?.stringValue, let hash = type.lastIndex(of: "#") {
                code = ProviderAnswer.token(.string(String(type[type.index(after: hash)...])))
            }
            if let code, Self.invalidNumberErrors.contains(code) {
                return .invalidNumber(DeliveryProblem(.invalidNumber, providerCode: code, httpStatus: status))
            }
            if let code, Self.transientErrors.contains(code) {
                return .retryLater(
                    DeliveryProblem(
                        code == "1000" ? .rateLimited : .serverError, providerCode: code, httpStatus: status))
            }
            return .providerFault(DeliveryProblem(.providerFault, providerCode: code, httpStatus: status))
        }
        // A call (Voice API) or a WhatsApp message (Messages API).
        if let id = answer?["uuid"] ?? answer?["message_uuid"] { return .sent(messageId: ProviderAnswer.token(id)) }
        guard case let .array(parts)? = answer?["messages"], !parts.isEmpty else {
            return .providerFault(DeliveryProblem(.providerFault, httpStatus: status, detail: "unexpected answer"))
        }
        // A long text goes as several parts; the message is sent when every part is.
        for part in parts {
            guard let code = ProviderAnswer.token(part["status"]) else {
                return .providerFault(DeliveryProblem(.providerFault, httpStatus: status, detail: "unexpected answer"))
            }
            if code == "0" { continue }
            if Self.invalidNumberStatuses.contains(code) {
                return .invalidNumber(DeliveryProblem(.invalidNumber, providerCode: code, httpStatus: status))
            }
            if Self.transientStatuses.contains(code) {
                return .retryLater(
                    DeliveryProblem(code == "1" ? .rateLimited : .serverError, providerCode: code, httpStatus: status)
                )
            }
            return .providerFault(DeliveryProblem(.providerFault, providerCode: code, httpStatus: status))
        }
        return .sent(messageId: ProviderAnswer.token(parts[0]["message-id"]))
    }
}
