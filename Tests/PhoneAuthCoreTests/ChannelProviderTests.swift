import Crypto
import Glibc
import XCTest
import _CryptoExtras

@testable import PhoneAuthCore

/// The providers' WhatsApp messages and calls: the requests they build, what their answers mean,
/// their configuration, Vonage's application JWT, and the texts a call says. No network: the
/// requests are read as built.
final class ChannelProviderTests: XCTestCase {
    let now = Timestamp(seconds: 1_800_000_000)

    private func message(_ channel: Channel, language: String = "en", body: String = "1 is it") -> SMSMessage {
        SMSMessage(
            to: "+16505553434", channel: channel, body: body, code: "123456", languageCode: language,
            verificationId: "v1", purpose: "signIn")
    }

    private func providers(_ json: String) throws -> [any HTTPProvider] {
        try ProviderSettings.read(try JSONCodec.parse(json))
    }

    private func provider<P>(_ json: String, as type: P.Type) throws -> P {
        try XCTUnwrap(try providers("[\(json)]").first as? P)
    }

    private func form(_ request: HTTPRequest) -> [String: String] {
        Dictionary(
            (PercentEncoding.queryItems(String(decoding: request.body, as: UTF8.self)) ?? []).map { ($0.0, $0.1) },
            uniquingKeysWith: { a, _ in a })
    }

    private func json(_ request: HTTPRequest) throws -> JSONValue {
        try JSONCodec.parse(String(decoding: request.body, as: UTF8.self))
    }

    private func header(_ request: HTTPRequest, _ name: String) -> String? {
        request.headers.first { $0.lowercased().hasPrefix(name.lowercased() + ":") }.map {
            String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces)
        }
    }

    // MARK: Channels

    func testAnEntryCarriesTheChannelsItListsAndOnlyThoseItsTypeCan() throws {
        let twilio = #"{"type": "twilio", "accountSid": "AC1", "authToken": "t", "from": "+15005550006"}"#
        let list = try providers(
            #"""
            [\#(twilio),
             {"type": "webhook", "name": "hook", "url": "https://h.example.com/send", \#
            "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "channels": ["sms", "whatsapp", "voice"]},
             {"type": "whatsapp", "phoneNumberId": "106540352242922", "accessToken": "EAAJB", \#
            "templates": {"en": "verification_code"}}]
            """#)
        XCTAssertEqual(list.map(\.channels), [[.sms], [.sms, .whatsapp, .voice], [.whatsapp]])

        let sender = #""type": "twilio", "accountSid": "AC1", "authToken": "t", "from": "+15005550006""#
        let refused: [(String, String)] = [
            (
                #"{"type": "whatsapp", "phoneNumberId": "1", "accessToken": "EAAJB", "templates": {"en": "a"}, "#
                    + #""channels": ["sms"]}"#,
                "holds sms, which a whatsapp provider cannot carry"
            ),
            (#"{\#(sender), "channels": ["fax"]}"#, "must be a list"),
            (#"{\#(sender), "channels": []}"#, "must be a list"),
            (#"{\#(sender), "channels": ["sms", "sms"]}"#, "twice"),
        ]
        for (entry, problem) in refused {
            XCTAssertThrowsError(try providers("[\(entry)]"), entry) { error in
                let error = error as? PhoneAuthError
                XCTAssertEqual(error?.details.first { $0.0 == "key" }?.1.stringValue, "sms.providers[0].channels")
                XCTAssertTrue(error?.message.contains(problem) == true, error?.message ?? "")
            }
        }
    }

    func testTheWebhookAddsTheChannelAndTheCodeButSendsAnSMSAsBefore() throws {
        let hook = try provider(
            #"{"type": "webhook", "url": "https://h.example.com/send", "#
                + #""secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "channels": ["sms", "voice"]}"#,
            as: WebhookProvider.self)
        let sms = try json(hook.request(for: message(.sms), now: now))
        XCTAssertEqual(
            sms.objectPairs.map { $0.0 },
            ["to", "body", "languageCode", "verificationId", "purpose", "encoding", "segments"])
        let call = try json(hook.request(for: message(.voice, body: "1, 2, 3"), now: now))
        XCTAssertEqual(call["channel"], .string("voice"))
        XCTAssertEqual(call["code"], .string("123456"))
        XCTAssertEqual(call["body"], .string("1, 2, 3"))
    }

    // MARK: Twilio

    private let twilioBase =
        #""type": "twilio", "accountSid": "AC1", "authToken": "tok", "baseUrl": "http://127.0.0.1:9""#

    func testTwilioSendsWhatsAppThroughAContentTemplate() throws {
        let twilio = try provider(
            #"{\#(twilioBase), "channels": ["whatsapp"], "whatsappFrom": "whatsapp:+14155238886", "#
                + #""whatsappContentSid": "HX0123456789abcdef", "receiptUrl": "https://auth.example.com/r/twilio"}"#,
            as: TwilioProvider.self)
        XCTAssertEqual(twilio.authToken, "tok")
        XCTAssertEqual(twilio.statusCallbackUrl, "https://auth.example.com/r/twilio")
        let request = twilio.request(for: message(.whatsapp), now: now)
        XCTAssertEqual(request.url, "http://127.0.0.1:9/2010-04-01/Accounts/AC1/Messages.json")
        XCTAssertEqual(request.basicAuth, "AC1:tok")
        XCTAssertEqual(
            form(request),
            [
                "To": "whatsapp:+16505553434", "From": "whatsapp:+14155238886", "ContentSid": "HX0123456789abcdef",
                "ContentVariables": #"{"1":"123456"}"#, "StatusCallback": "https://auth.example.com/r/twilio",
            ])

        // With a messaging service, the service sends it.
        let service = try provider(
            #"{\#(twilioBase), "channels": ["sms", "whatsapp"], "messagingServiceSid": "MG1", "#
                + #""whatsappContentSid": "HX1"}"#,
            as: TwilioProvider.self)
        XCTAssertEqual(form(service.request(for: message(.whatsapp), now: now))["MessagingServiceSid"], "MG1")
        XCTAssertNil(form(service.request(for: message(.whatsapp), now: now))["From"])
        XCTAssertEqual(form(service.request(for: message(.sms), now: now))["Body"], "1 is it")
    }

    func testTwilioCallsAndSaysTheTextInTheMessagesLanguage() throws {
        let twilio = try provider(
            #"{\#(twilioBase), "channels": ["sms", "voice"], "from": "+15005550006", "voiceFrom": "+15005550007", "#
                + #""receiptUrl": "https://auth.example.com/r/twilio"}"#,
            as: TwilioProvider.self)
        let text = try VoiceText(appName: nil, hostTemplates: [:], defaultLanguage: "en")
        let request = twilio.request(
            for: message(.voice, language: "fr", body: text.body(language: "fr", code: "123456")), now: now)
        XCTAssertEqual(request.url, "http://127.0.0.1:9/2010-04-01/Accounts/AC1/Calls.json")
        let fields = form(request)
        XCTAssertEqual(fields["To"], "+16505553434")
        XCTAssertEqual(fields["From"], "+15005550007")
        XCTAssertEqual(fields["StatusCallback"], "https://auth.example.com/r/twilio")
        XCTAssertEqual(
            fields["Twiml"],
            #"<Response><Pause length="1"/><Say language="fr-FR">"#
                + "Votre code de vérification est 1, 2, 3, 4, 5, 6. "
                + "Je répète : Votre code de vérification est 1, 2, 3, 4, 5, 6.</Say></Response>")
        // The text is XML-escaped; Chinese is said in Mandarin.
        let escaped = twilio.request(for: message(.voice, language: "zh-TW", body: #"A&B <"x"> 1"#), now: now)
        XCTAssertEqual(
            form(escaped)["Twiml"],
            #"<Response><Pause length="1"/><Say language="cmn-TW">A&amp;B &lt;&quot;x&quot;&gt; 1</Say></Response>"#)
        // An SMS still goes as before.
        XCTAssertEqual(
            String(decoding: twilio.request(for: message(.sms), now: now).body, as: UTF8.self),
            "To=%2B16505553434&From=%2B15005550006&Body=1%20is%20it"
                + "&StatusCallback=https%3A%2F%2Fauth.example.com%2Fr%2Ftwilio")
    }

    func testTwilioAnswersForCallsAndWhatsApp() {
        let twilio = TwilioProvider(
            endpoint: HTTPEndpoint(name: "t", baseUrl: "http://127.0.0.1:9"), accountSid: "AC1", credentials: "AC1:t",
            from: "+15005550006", messagingServiceSid: nil)
        XCTAssertEqual(
            twilio.interpret(status: 201, body: Array(#"{"sid": "CA0123456789abcdef", "status": "queued"}"#.utf8)),
            .sent(messageId: "CA0123456789abcdef"))
        for code in ["21217", "63003", "63024"] {
            XCTAssertEqual(
                twilio.interpret(status: 400, body: Array(#"{"code": \#(code), "message": "no"}"#.utf8)),
                .invalidNumber(DeliveryProblem(.invalidNumber, providerCode: code, httpStatus: 400)))
        }
        XCTAssertEqual(
            twilio.interpret(status: 400, body: Array(#"{"code": 63007}"#.utf8)),
            .providerFault(DeliveryProblem(.providerFault, providerCode: "63007", httpStatus: 400)))
    }

    func testTwilioKeepsTheAuthTokenBesideAnAPIKeyForItsCallbacks() throws {
        let twilio = try provider(
            #"{"type": "twilio", "accountSid": "AC1", "apiKeySid": "SK1", "apiKeySecret": "ks", "authToken": "tok", "#
                + #""from": "+15005550006"}"#,
            as: TwilioProvider.self)
        XCTAssertEqual(twilio.credentials, "SK1:ks")
        XCTAssertEqual(twilio.authToken, "tok")
    }

    // MARK: Meta's WhatsApp Cloud API

    private let meta =
        #"{"type": "whatsapp", "phoneNumberId": "106540352242922", "accessToken": "EAAJBs3cret", "#
        + #""appSecret": "app-secret", "templates": {"en": {"name": "verification_code", "language": "en_US"}, "#
        + #""fr": {"name": "code_verification", "language": "fr"}, "pt-BR": "codigo"}}"#

    func testMetaSendsTheAuthenticationTemplateWithTheCodeInItsBodyAndButton() throws {
        let whatsapp = try provider(meta, as: WhatsAppProvider.self)
        XCTAssertEqual(whatsapp.appSecret, "app-secret")
        let request = whatsapp.request(for: message(.whatsapp, language: "fr-CA"), now: now)
        XCTAssertEqual(request.url, "https://graph.facebook.com/v21.0/106540352242922/messages")
        XCTAssertEqual(header(request, "Authorization"), "Bearer EAAJBs3cret")
        XCTAssertEqual(header(request, "Content-Type"), "application/json")
        XCTAssertNil(request.basicAuth)
        XCTAssertEqual(
            try json(request),
            try JSONCodec.parse(
                #"""
                {"messaging_product": "whatsapp", "recipient_type": "individual", "to": "16505553434",
                 "type": "template", "template": {"name": "code_verification", "language": {"code": "fr"},
                 "components": [{"type": "body", "parameters": [{"type": "text", "text": "123456"}]},
                  {"type": "button", "sub_type": "url", "index": "0",
                   "parameters": [{"type": "text", "text": "123456"}]}]}}
                """#))
        // The template: the exact tag, its language, English, else the first by tag.
        let templates = whatsapp.templates
        XCTAssertEqual(WhatsAppProvider.template(for: "pt-BR", in: templates), .init(name: "codigo", language: "pt_BR"))
        XCTAssertEqual(WhatsAppProvider.template(for: "fr", in: templates).name, "code_verification")
        XCTAssertEqual(WhatsAppProvider.template(for: "de", in: templates).name, "verification_code")
        let noEnglish = [
            "ja": WhatsAppProvider.Template(name: "j", language: "ja"), "de": .init(name: "d", language: "de"),
        ]
        XCTAssertEqual(WhatsAppProvider.template(for: "ko", in: noEnglish).name, "d")
        // The API version and base URL are the entry's.
        let pinned = try provider(
            #"{"type": "whatsapp", "phoneNumberId": "1", "accessToken": "t", "templates": {"en": "a"}, "#
                + #""apiVersion": "v23.0", "baseUrl": "http://127.0.0.1:9/"}"#,
            as: WhatsAppProvider.self)
        XCTAssertEqual(pinned.request(for: message(.whatsapp), now: now).url, "http://127.0.0.1:9/v23.0/1/messages")
        XCTAssertNil(pinned.appSecret)
    }

    func testMetaAnswersMeanWhatItsErrorCodesSay() {
        let whatsapp = WhatsAppProvider(
            endpoint: HTTPEndpoint(name: "w", baseUrl: "http://127.0.0.1:9"), phoneNumberId: "1", accessToken: "t",
            templates: ["en": .init(name: "a", language: "en")])
        let sent = #"""
            {"messaging_product": "whatsapp", "contacts": [{"input": "+16505553434", "wa_id": "16505553434"}],
             "messages": [{"id": "wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3QkE0RTA0NjU0RjU1QUVGRjAA"}]}
            """#
        XCTAssertEqual(
            whatsapp.interpret(status: 200, body: Array(sent.utf8)),
            .sent(messageId: "wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3QkE0RTA0NjU0RjU1QUVGRjAA"))
        func error(_ code: Int, status: Int = 400) -> SMSSendResult {
            whatsapp.interpret(
                status: status,
                body: Array(
                    #"{"error": {"message": "(#\#(code)) x", "type": "OAuthException", "code": \#(code)}}"#
                        .utf8))
        }
        for code in [131026, 131030] {
            XCTAssertEqual(
                error(code), .invalidNumber(DeliveryProblem(.invalidNumber, providerCode: "\(code)", httpStatus: 400)))
        }
        for code in [130429, 131056, 80007, 4] {
            XCTAssertEqual(
                error(code), .retryLater(DeliveryProblem(.rateLimited, providerCode: "\(code)", httpStatus: 400)))
        }
        XCTAssertEqual(
            error(190, status: 401),
            .providerFault(DeliveryProblem(.providerFault, providerCode: "190", httpStatus: 401)))
        XCTAssertEqual(
            error(100), .providerFault(DeliveryProblem(.providerFault, providerCode: "100", httpStatus: 400)))
        guard case .providerFault = whatsapp.interpret(status: 200, body: Array("{}".utf8)) else { return XCTFail() }
    }

    // MARK: Vonage

    private let vonageSMS = #""type": "vonage", "apiKey": "k", "apiSecret": "s3cret", "baseUrl": "http://127.0.0.1:9""#
    private var vonageBase: String { vonageSMS + #", "apiBaseUrl": "http://127.0.0.1:8""# }

    func testVonageSendsWhatsAppAsACustomTemplateThroughTheMessagesAPI() throws {
        let vonage = try provider(
            #"{\#(vonageBase), "channels": ["whatsapp"], "whatsappFrom": "+14157386102", "#
                + #""whatsappTemplates": {"en": {"name": "otp", "language": "en_GB"}, "de": "otp_de"}}"#,
            as: VonageProvider.self)
        let request = vonage.request(for: message(.whatsapp, language: "de-AT"), now: now)
        XCTAssertEqual(request.url, "http://127.0.0.1:8/v1/messages")
        XCTAssertEqual(request.basicAuth, "k:s3cret")
        XCTAssertEqual(
            try json(request),
            try JSONCodec.parse(
                #"""
                {"message_type": "custom", "channel": "whatsapp", "from": "14157386102", "to": "16505553434",
                 "custom": {"type": "template", "template": {"name": "otp_de",
                  "language": {"policy": "deterministic", "code": "de"},
                  "components": [{"type": "body", "parameters": [{"type": "text", "text": "123456"}]},
                   {"type": "button", "sub_type": "url", "index": "0",
                    "parameters": [{"type": "text", "text": "123456"}]}]}}}
                """#))
        XCTAssertEqual(
            vonage.interpret(
                status: 202, body: Array(#"{"message_uuid": "aaaaaaaa-bbbb-4ccc-8ddd-0123456789ab"}"#.utf8)),
            .sent(messageId: "aaaaaaaa-bbbb-4ccc-8ddd-0123456789ab"))
        func error(_ status: Int, _ code: String) -> SMSSendResult {
            vonage.interpret(
                status: status,
                body: Array(
                    #"{"type": "https://developer.vonage.com/api-errors/messages#\#(code)", "title": "x"}"#
                        .utf8))
        }
        XCTAssertEqual(
            error(422, "1160"), .invalidNumber(DeliveryProblem(.invalidNumber, providerCode: "1160", httpStatus: 422)))
        XCTAssertEqual(
            error(422, "1040"), .invalidNumber(DeliveryProblem(.invalidNumber, providerCode: "1040", httpStatus: 422)))
        XCTAssertEqual(
            error(422, "1000"), .retryLater(DeliveryProblem(.rateLimited, providerCode: "1000", httpStatus: 422)))
        XCTAssertEqual(
            error(422, "1020"), .providerFault(DeliveryProblem(.providerFault, providerCode: "1020", httpStatus: 422)))
        XCTAssertEqual(
            vonage.interpret(
                status: 401, body: Array(#"{"type": "https://developer.vonage.com/api-errors#unauthorized"}"#.utf8)),
            .providerFault(DeliveryProblem(.providerFault, providerCode: "unauthorized", httpStatus: 401)))
    }

    func testVonageSMSNamesTheReceiptURL() throws {
        let vonage = try provider(
            #"{\#(vonageSMS), "from": "Acme", "receiptUrl": "https://auth.example.com/r/vonage", "#
                + #""signatureSecret": "sig"}"#,
            as: VonageProvider.self)
        XCTAssertEqual(vonage.signatureSecret, "sig")
        let request = vonage.request(for: message(.sms), now: now)
        XCTAssertEqual(request.url, "http://127.0.0.1:9/sms/json")
        // Vonage's SMS receipts are signed in a way PhoneAuth does not read: none are asked for.
        XCTAssertNil(form(request)["callback"])
        XCTAssertEqual(form(request)["from"], "Acme")
    }

    /// A new 2048-bit key, and its PEM as Vonage's dashboard gives it (PKCS#8).
    private func applicationKey() throws -> (_RSA.Signing.PrivateKey, String) {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        return (key, key.pkcs8PEMRepresentation)
    }

    private func jsonString(_ text: String) -> String { JSONCodec.serialize(.string(text)) }

    func testVonageCallsWithATokenSignedByTheApplicationsKey() throws {
        let (key, pem) = try applicationKey()
        XCTAssertTrue(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let vonage = try provider(
            #"{\#(vonageBase), "channels": ["voice"], "voiceFrom": "14155550100", "#
                + #""applicationId": "aaaaaaaa-bbbb-cccc-dddd-0123456789ab", "privateKey": \#(jsonString(pem)), "#
                + #""receiptUrl": "https://auth.example.com/r/vonage", "signatureSecret": "sig"}"#,
            as: VonageProvider.self)
        let said = "認証コードは 1, 2, 3 です。"
        let request = vonage.request(for: message(.voice, language: "ja", body: said), now: now)
        XCTAssertEqual(request.url, "http://127.0.0.1:8/v1/calls")
        XCTAssertNil(request.basicAuth)
        XCTAssertEqual(
            try json(request),
            try JSONCodec.parse(
                #"""
                {"to": [{"type": "phone", "number": "16505553434"}], "from": {"type": "phone", "number": "14155550100"},
                 "ncco": [{"action": "talk", "text": "認証コードは 1, 2, 3 です。", "language": "ja-JP"}],
                 "event_url": ["https://auth.example.com/r/vonage"]}
                """#))

        // The token: RS256 over header.claims, verified with the public half alone.
        let authorization = try XCTUnwrap(header(request, "Authorization"))
        XCTAssertTrue(authorization.hasPrefix("Bearer "))
        let parts = authorization.dropFirst(7).split(separator: ".", omittingEmptySubsequences: false)
        XCTAssertEqual(parts.count, 3)
        let signature = try XCTUnwrap(Base64URL.decode(parts[2]))
        let publicKey = try _RSA.Signing.PublicKey(pemRepresentation: key.publicKey.pemRepresentation)
        XCTAssertTrue(
            publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: Array("\(parts[0]).\(parts[1])".utf8),
                padding: .insecurePKCS1v1_5))
        var forged = signature
        forged[10] ^= 1
        XCTAssertFalse(
            publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: forged), for: Array("\(parts[0]).\(parts[1])".utf8),
                padding: .insecurePKCS1v1_5))
        let jwtHeader = try JSONCodec.parse(String(decoding: try XCTUnwrap(Base64URL.decode(parts[0])), as: UTF8.self))
        XCTAssertEqual(jwtHeader["alg"], .string("RS256"))
        XCTAssertEqual(jwtHeader["typ"], .string("JWT"))
        let claims = try JSONCodec.parse(String(decoding: try XCTUnwrap(Base64URL.decode(parts[1])), as: UTF8.self))
        XCTAssertEqual(claims["application_id"], .string("aaaaaaaa-bbbb-cccc-dddd-0123456789ab"))
        XCTAssertEqual(claims["iat"]?.intValue, 1_800_000_000)
        XCTAssertEqual(claims["exp"]?.intValue, 1_800_000_300)
        let jti = try XCTUnwrap(claims["jti"]?.stringValue)
        XCTAssertGreaterThanOrEqual(jti.count, 16)
        // Every call has its own token.
        let again = try XCTUnwrap(header(vonage.request(for: message(.voice), now: now), "Authorization"))
        XCTAssertNotEqual(again, authorization)

        XCTAssertEqual(
            vonage.interpret(
                status: 201,
                body: Array(
                    (#"{"uuid": "63f61863-4a51-4f6b-86e1-46edebcf9356", "status": "started", "direction": "outbound", "#
                        + #""conversation_uuid": "CON-f972836a-550f-45fa-956c-12a2ab5b7d22"}"#).utf8)),
            .sent(messageId: "63f61863-4a51-4f6b-86e1-46edebcf9356"))
    }

    func testVonagesKeyComesFromAFileOrTheEnvironment() throws {
        let (key, pem) = try applicationKey()
        let path = temporaryDirectory() + "/private.key"
        let file = try XCTUnwrap(fopen(path, "w"))
        fputs(pem, file)
        fclose(file)
        let voice =
            #"\#(vonageBase), "channels": ["voice"], "voiceFrom": "14155550100", "applicationId": "app""#
        let fromFile = try provider(#"{\#(voice), "privateKeyFile": "\#(path)"}"#, as: VonageProvider.self)
        // An environment variable holds the PEM on one line, its newlines written \n.
        setenv("PHONEAUTH_TEST_VONAGE_KEY", pem.replacingOccurrences(of: "\n", with: "\\n"), 1)
        defer { unsetenv("PHONEAUTH_TEST_VONAGE_KEY") }
        let fromEnv = try provider(
            #"{\#(voice), "privateKeyEnv": "PHONEAUTH_TEST_VONAGE_KEY"}"#, as: VonageProvider.self)
        for vonage in [fromFile, fromEnv] {
            let token = try XCTUnwrap(vonage.jwt?.token(now: now, jti: "fixed"))
            let parts = token.split(separator: ".")
            XCTAssertTrue(
                key.publicKey.isValidSignature(
                    _RSA.Signing.RSASignature(rawRepresentation: try XCTUnwrap(Base64URL.decode(parts[2]))),
                    for: Array("\(parts[0]).\(parts[1])".utf8), padding: .insecurePKCS1v1_5))
        }
    }

    // MARK: Receipts

    func testEachProviderChecksItsCallbacksWithTheSecretItsEntryStores() throws {
        let twilio = try provider(
            #"{\#(twilioBase), "from": "+15005550006", "receiptUrl": "https://auth.example.com/r/twilio"}"#,
            as: TwilioProvider.self)
        let url = "https://auth.example.com/r/twilio"
        var mac = HMAC<Insecure.SHA1>(key: SymmetricKey(data: Array("tok".utf8)))
        mac.update(data: Array((url + "MessageSidSM123MessageStatusdelivered").utf8))
        let signed = ReceiptRequest(
            url: url, headers: [("X-Twilio-Signature", Base64.encode(Array(mac.finalize())))],
            body: Array("MessageSid=SM123&MessageStatus=delivered".utf8))
        XCTAssertEqual(
            try twilio.receipts(from: signed, now: now), [DeliveryReceipt(messageId: "SM123", status: .delivered)])

        let body = Array(
            (#"{"object": "whatsapp_business_account", "entry": [{"id": "1", "changes": [{"field": "messages", "#
                + #""value": {"messaging_product": "whatsapp", "statuses": [{"id": "wamid.ABC", "status": "read", "#
                + #""timestamp": "1800000000", "recipient_id": "16505553434"}]}}]}]}"#).utf8)
        var hub = HMAC<SHA256>(key: SymmetricKey(data: Array("app-secret".utf8)))
        hub.update(data: body)
        let hex = Array(hub.finalize()).map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        let callback = ReceiptRequest(
            url: "https://auth.example.com/r/meta", headers: [("X-Hub-Signature-256", "sha256=" + hex)], body: body)
        let whatsapp = try provider(meta, as: WhatsAppProvider.self)
        XCTAssertEqual(try whatsapp.receipts(from: callback, now: now).map(\.status), [.delivered])
        // Without the app's secret, nothing can be checked: every callback is refused.
        var unsigned = whatsapp
        unsigned.appSecret = nil
        XCTAssertThrowsError(try unsigned.receipts(from: callback, now: now)) {
            XCTAssertEqual((($0 as? PhoneAuthError)?.details.first { $0.0 == "reason" })?.1, .string("noReceipts"))
        }
    }

    // MARK: Configuration

    func testChannelConfigurationErrorsNameTheKeyAndNeverTheSecret() throws {
        let (_, pem) = try applicationKey()
        let twilio = #""type": "twilio", "accountSid": "AC1", "authToken": "s3cret-token""#
        let vonage = #""type": "vonage", "apiKey": "k", "apiSecret": "s3cret-token""#
        let voice = #"\#(vonage), "channels": ["voice"], "voiceFrom": "14155550100", "applicationId": "app""#
        let whatsapp = #""type": "whatsapp", "phoneNumberId": "1065403", "accessToken": "s3cret-token""#
        let cases: [(String, String)] = [
            (#"{\#(twilio), "channels": ["whatsapp"], "whatsappFrom": "+14155238886"}"#, "whatsappContentSid"),
            (#"{\#(twilio), "channels": ["whatsapp"], "whatsappContentSid": "HX1"}"#, "whatsappFrom"),
            (#"{\#(twilio), "from": "+15005550006", "whatsappContentSid": "HX1"}"#, "whatsappContentSid"),
            (#"{\#(twilio), "channels": ["voice"]}"#, "voiceFrom"),
            (#"{\#(twilio), "channels": ["voice"], "voiceFrom": "4155550100"}"#, "voiceFrom"),
            (#"{\#(twilio), "channels": ["voice"], "voiceFrom": "+14155550100", "from": "+15005550006"}"#, "from"),
            (#"{\#(twilio), "from": "+15005550006", "voiceFrom": "+14155550100"}"#, "voiceFrom"),
            (#"{\#(twilio), "from": "+15005550006", "receiptUrl": "http://example.com/r"}"#, "receiptUrl"),
            (
                #"{"type": "twilio", "accountSid": "AC1", "apiKeySid": "SK1", "apiKeySecret": "s3cret-token", "#
                    + #""from": "+15005550006", "receiptUrl": "https://a.example.com/r"}"#,
                "authToken"
            ),
            (#"{\#(vonage), "channels": ["whatsapp"], "whatsappFrom": "14157386102"}"#, "whatsappTemplates"),
            (
                #"{\#(vonage), "channels": ["whatsapp"], "whatsappFrom": "14157386102", "#
                    + #""whatsappTemplates": {"en": "Verify Code"}}"#,
                "whatsappTemplates.en"
            ),
            (
                #"{\#(vonage), "channels": ["whatsapp"], "whatsappFrom": "14157386102", "#
                    + #""whatsappTemplates": {"en": "a", "EN": "b"}}"#,
                "whatsappTemplates.EN"
            ),
            (#"{\#(vonage), "from": "Acme", "receiptUrl": "https://a.example.com/r"}"#, "signatureSecret"),
            (#"{\#(vonage), "from": "Acme", "applicationId": "app"}"#, "applicationId"),
            (#"{\#(vonage), "from": "Acme", "apiBaseUrl": "https://api.nexmo.com"}"#, "apiBaseUrl"),
            (#"{\#(voice)}"#, "privateKey"),
            (
                #"{\#(voice), "privateKey": "-----BEGIN PRIVATE KEY-----\ns3cret-token\n-----END PRIVATE KEY-----"}"#,
                "privateKey"
            ),
            (#"{\#(voice), "privateKeyFile": "/nonexistent/s3cret.key"}"#, "privateKeyFile"),
            (#"{\#(voice), "privateKey": \#(jsonString(pem)), "privateKeyFile": "/tmp/k"}"#, "privateKeyFile"),
            (#"{\#(voice), "privateKeyEnv": "PHONEAUTH_TEST_UNSET_VARIABLE"}"#, "privateKeyEnv"),
            (#"{\#(whatsapp)}"#, "templates"),
            (#"{\#(whatsapp), "templates": {}}"#, "templates"),
            (#"{\#(whatsapp), "templates": {"english": "a"}}"#, "templates.english"),
            (#"{\#(whatsapp), "templates": {"en": {"name": "a", "language": "en-US!"}}}"#, "templates.en.language"),
            (#"{\#(whatsapp), "templates": {"en": {"name": "a", "namespace": "x"}}}"#, "templates.en.namespace"),
            (#"{\#(whatsapp), "templates": {"en": "a"}, "apiVersion": "21"}"#, "apiVersion"),
            (#"{"type": "whatsapp", "phoneNumberId": "1", "templates": {"en": "a"}}"#, "accessToken"),
            (
                #"{\#(whatsapp), "templates": {"en": "a"}, "appSecretEnv": "PHONEAUTH_TEST_UNSET_VARIABLE"}"#,
                "appSecretEnv"
            ),
            (
                #"{"type": "whatsapp", "phoneNumberId": "+1", "accessToken": "s3cret", "templates": {"en": "a"}}"#,
                "phoneNumberId"
            ),
            (
                #"{"type": "webhook", "url": "https://h.example.com/s", "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "#
                    + #""receiptUrl": "https://h.example.com/r"}"#,
                "receiptUrl"
            ),
        ]
        for (entry, expected) in cases {
            do {
                _ = try providers("[\(entry)]")
                XCTFail("accepted: \(entry)")
            } catch let error as PhoneAuthError {
                XCTAssertEqual(error.code, .invalidConfiguration)
                XCTAssertEqual(
                    error.details.first { $0.0 == "key" }?.1.stringValue, "sms.providers[0].\(expected)", entry)
                let text = "\(error.message) \(error.details)"
                XCTAssertFalse(text.contains("s3cret"), text)
                XCTAssertFalse(text.contains("MII"), text)
            }
        }
        // The push and events webhooks have no channels or receipts.
        let push = try ObjectReader(
            try JSONCodec.parse(
                #"{"url": "https://h.example.com/p", "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "channels": ["sms"]}"#
            ),
            code: .invalidConfiguration, path: "appVerification.pushWebhook")
        XCTAssertThrowsError(try ProviderSettings.readWebhook(push, path: "appVerification.pushWebhook")) {
            XCTAssertEqual(
                ($0 as? PhoneAuthError)?.details.first { $0.0 == "key" }?.1.stringValue,
                "appVerification.pushWebhook.channels")
        }
    }

    // MARK: Voice texts

    func testEveryLanguageSaysTheCodeDigitByDigitTwice() throws {
        let plain = try VoiceText(appName: nil, hostTemplates: [:], defaultLanguage: "en")
        let named = try VoiceText(appName: "Acme", hostTemplates: [:], defaultLanguage: "en")
        XCTAssertEqual(Set(VoiceTemplates.templates.keys), Set(SMSTemplates.languages))
        XCTAssertEqual(Set(VoiceTemplates.withAppName.keys), Set(SMSTemplates.languages))
        XCTAssertEqual(Set(VoiceTemplates.again.keys), Set(SMSTemplates.languages))
        for language in SMSTemplates.languages {
            for text in [plain, named] {
                let body = text.body(language: language, code: "482910")
                XCTAssertEqual(body.components(separatedBy: "4, 8, 2, 9, 1, 0").count, 3, body)
                XCTAssertFalse(body.contains("482910"), body)
                XCTAssertFalse(body.contains("{"), body)
            }
            XCTAssertTrue(named.body(language: language, code: "1").contains("Acme"), language)
            XCTAssertTrue(VoiceText.voiceLocale(language).contains("-"), language)
        }
        XCTAssertEqual(
            plain.body(language: "en", code: "123"),
            "Your verification code is 1, 2, 3. Again: Your verification code is 1, 2, 3.")
        XCTAssertEqual(VoiceText.spoken("0042"), "0, 0, 4, 2")
        let locales = [
            "en", "fr", "pt", "zh-CN", "zh-TW", "zh-Hant-HK", "ja", "ko", "id", "ru", "fr-CA", "sv", "sr-Latn-RS", "xx",
        ]
        .map(VoiceText.voiceLocale)
        XCTAssertEqual(
            locales,
            [
                "en-US", "fr-FR", "pt-BR", "cmn-CN", "cmn-TW", "cmn-TW", "ja-JP", "ko-KR", "id-ID", "ru-RU", "fr-CA",
                "sv-SE", "sr-RS", "xx",
            ])
    }

    func testHostVoiceTextsAreCheckedLikeSMSTexts() throws {
        let text = try VoiceText(
            appName: "Acme", hostTemplates: ["fr_ca": "Code {appName} : {code}.", "sv": "Din kod är {code}."],
            defaultLanguage: "sv")
        XCTAssertEqual(text.resolve("fr-CA", fallback: "en"), "fr-CA")
        XCTAssertEqual(text.resolve("fr-BE", fallback: "en"), "fr")
        XCTAssertEqual(text.resolve("sv-FI", fallback: "en"), "sv")
        XCTAssertEqual(text.resolve("tlh", fallback: "en"), "en")
        // A host's French borrows the built-in lead-in; Swedish has none.
        XCTAssertEqual(text.body(language: "fr-CA", code: "12"), "Code Acme : 1, 2. Je répète : Code Acme : 1, 2.")
        XCTAssertEqual(text.body(language: "sv", code: "12"), "Din kod är 1, 2. Din kod är 1, 2.")

        let refused: [([String: String], String?, String, String)] = [
            (["fr": "Code {minutes}: {code}"], nil, "en", "voice.templates.fr"),
            (["fr": "{code} {code}"], nil, "en", "voice.templates.fr"),
            (["fr": "Pas de code"], nil, "en", "voice.templates.fr"),
            (["fr": "{appName}: {code}"], nil, "en", "voice.templates.fr"),
            (["fr": "{code", "de": "{code}"], nil, "en", "voice.templates.fr"),
            (["english": "{code}"], nil, "en", "voice.templates.english"),
            (["fr": "{code}", "FR": "{code}"], nil, "en", "voice.templates.fr"),
            ([:], nil, "sv", "defaultLanguageCode"),
        ]
        for (templates, appName, language, key) in refused {
            XCTAssertThrowsError(
                try VoiceText(appName: appName, hostTemplates: templates, defaultLanguage: language), key
            ) { error in
                XCTAssertEqual((error as? PhoneAuthError)?.details.first { $0.0 == "key" }?.1.stringValue, key)
            }
        }
        // {minutes} is named as unknown to a voice text, and the placeholders it may hold are listed.
        XCTAssertThrowsError(
            try VoiceText(appName: nil, hostTemplates: ["fr": "{minutes} {code}"], defaultLanguage: "en")
        ) {
            let message = ($0 as? PhoneAuthError)?.message ?? ""
            XCTAssertTrue(message.contains("{code}, {appName}") && !message.contains("{minutes},"), message)
        }
    }
}
