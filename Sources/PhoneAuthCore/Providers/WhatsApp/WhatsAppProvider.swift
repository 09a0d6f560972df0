/// Meta's WhatsApp Cloud API: POST {baseUrl}/{apiVersion}/{phoneNumberId}/messages with
/// `Authorization: Bearer {accessToken}` and an approved authentication template whose body and
/// copy-code button both take the code. A 200 carries the message's ID (the wamid) in
/// `messages[0].id`; an error carries Meta's `error.code`. Meta sends delivery statuses to the
/// callback URL set in the app's dashboard, signed with the app's secret (X-Hub-Signature-256).
struct WhatsAppProvider: HTTPProvider {
    static let defaultBaseUrl = "https://graph.facebook.com"
    static let defaultApiVersion = "v21.0"
    /// 131026 message undeliverable (not on WhatsApp, an old client, terms not accepted),
    /// 131030 the number is not on a test number's allowed list: no retry brings it.
    static let invalidNumberCodes: Set<String> = ["131026", "131030"]
    /// 4 the app's call rate, 80007 the business account's, 130429 Cloud API throughput,
    /// 131056 too many messages to the same number: the same message goes later.
    static let rateLimitCodes: Set<String> = ["4", "80007", "130429", "131056"]
    /// 2 the service is down or overloaded for a while.
    static let transientCodes: Set<String> = ["2"]

    /// An approved authentication template: its name and its language as Meta names it ("en_US").
    struct Template: Sendable, Equatable {
        let name: String
        let language: String
    }

    let endpoint: HTTPEndpoint
    var apiVersion = defaultApiVersion
    let phoneNumberId: String
    let accessToken: String
    /// By message language ("en", "pt-BR"), canonical tags; never empty.
    let templates: [String: Template]
    /// The app's secret, with which Meta signs its callbacks; nil when none was configured.
    var appSecret: String? = nil
    /// The token Meta's subscription check of the callback URL must present (`verifyToken`).
    var verifyToken: String? = nil
    /// Where the host receives Meta's callbacks: kept for the record (Meta takes it in its dashboard).
    var receiptUrl: String? = nil
    var channels: Set<Channel> = [.whatsapp]

    func request(for message: SMSMessage, now: Timestamp) -> HTTPRequest {
        let template = Self.template(for: message.languageCode, in: templates)
        let payload: JSONValue = .object([
            ("messaging_product", .string("whatsapp")), ("recipient_type", .string("individual")),
            ("to", .string(Self.digits(message.to))), ("type", .string("template")),
            ("template", Self.templateObject(template, code: message.code)),
        ])
        let url =
            "\(endpoint.baseUrl)/\(apiVersion)/\(PercentEncoding.encode(phoneNumberId))/messages"
        return post(
            url, body: Array(JSONCodec.serialize(payload).utf8),
            headers: [
                "Content-Type: application/json", "Accept: application/json", "Authorization: Bearer \(accessToken)",
            ])
    }

    /// Status webhooks, signed with the app's secret (`MetaReceipts`).
    func receipts(from request: ReceiptRequest, now: Timestamp) throws(PhoneAuthError) -> [DeliveryReceipt] {
        guard let appSecret else { throw ProviderSettings.noSecret(endpoint.name, key: "appSecret") }
        return try MetaReceipts.read(request, appSecret: appSecret, now: now)
    }

    func subscriptionChallenge(url: String) throws(PhoneAuthError) -> String {
        guard let verifyToken else { throw ProviderSettings.noSecret(endpoint.name, key: "verifyToken") }
        return try MetaReceipts.challenge(url: url, verifyToken: verifyToken)
    }

    func interpret(status: Int, body: [UInt8]) -> SMSSendResult {
        let answer = ProviderAnswer.object(body)
        if (200..<300).contains(status) {
            guard case let .array(messages)? = answer?["messages"], let first = messages.first else {
                return .providerFault(DeliveryProblem(.providerFault, httpStatus: status, detail: "unexpected answer"))
            }
            return .sent(messageId: ProviderAnswer.token(first["id"]))
        }
        let code = ProviderAnswer.token(answer?["error"]?["code"])
        if let code, Self.invalidNumberCodes.contains(code) {
            return .invalidNumber(DeliveryProblem(.invalidNumber, providerCode: code, httpStatus: status))
        }
        if let code, Self.rateLimitCodes.contains(code) {
            return .retryLater(DeliveryProblem(.rateLimited, providerCode: code, httpStatus: status))
        }
        if let code, Self.transientCodes.contains(code) {
            return .retryLater(DeliveryProblem(.serverError, providerCode: code, httpStatus: status))
        }
        // 190 and 0 (the token), 10 and 200-299 (permissions), 100 and 132xxx (the request or
        // the template): this provider cannot send it, the next one may.
        return .providerFault(DeliveryProblem(.providerFault, providerCode: code, httpStatus: status))
    }

    /// The template for a message's language: the exact tag, then its primary language, then
    /// English, then the first by tag (the same for every engine).
    static func template(for language: String, in templates: [String: Template]) -> Template {
        let fallback = templates["en"] != nil ? "en" : templates.keys.min() ?? "en"
        let tag = SMSTemplates.resolve(language, fallback: fallback, known: { templates[$0] != nil })
        return templates[tag] ?? templates[fallback] ?? Template(name: "", language: "en")
    }

    /// A template as WhatsApp takes it: the code in the body and in the copy-code button (a URL
    /// button at index 0 once Meta has created it). Vonage passes the same object on, with
    /// `policy` (`withPolicy`).
    static func templateObject(_ template: Template, code: String, withPolicy: Bool = false) -> JSONValue {
        let parameter: JSONValue = .array([.object([("type", .string("text")), ("text", .string(code))])])
        var language: [(String, JSONValue)] = [("code", .string(template.language))]
        if withPolicy { language.insert(("policy", .string("deterministic")), at: 0) }
        return .object([
            ("name", .string(template.name)), ("language", .object(language)),
            (
                "components",
                .array([
                    .object([("type", .string("body")), ("parameters", parameter)]),
                    .object([
                        ("type", .string("button")), ("sub_type", .string("url")), ("index", .string("0")),
                        ("parameters", parameter),
                    ]),
                ])
            ),
        ])
    }

    /// An E.164 number without its +, as WhatsApp and Vonage write numbers.
    static func digits(_ number: String) -> String {
        number.hasPrefix("+") ? String(number.dropFirst()) : number
    }
}
