import Crypto
import Foundation
import XCTest
@testable import PhoneAuthCore

/// Delivery receipts from Twilio, Meta's WhatsApp Cloud API and Vonage: each callback is built as
/// the provider's documentation shows it and signed here with swift-crypto and Foundation's base64,
/// apart from the code under test, then read; forged, unsigned, altered, stale and oddly signed
/// ones are refused with their reason, and no refusal repeats a secret or a signature.
final class ReceiptTests: XCTestCase {
    let now = Timestamp(seconds: 1_800_000_000)

    // MARK: Twilio

    let authToken = "12345678901234567890123456789012"
    let twilioURL = "https://auth.example.com/phoneauth/v1/receipts/twilio"

    /// base64(HMAC-SHA1(token, url + each name and value sorted by name)), as Twilio's "Webhooks security" says.
    func twilioSignature(url: String, _ fields: [(String, String)], token: String? = nil) -> String {
        let text = url + fields.sorted { $0.0 < $1.0 }.map { $0.0 + $0.1 }.joined()
        let mac = HMAC<Insecure.SHA1>.authenticationCode(
            for: Data(text.utf8), using: SymmetricKey(data: Data((token ?? authToken).utf8)))
        return Data(mac).base64EncodedString()
    }

    func form(_ fields: [(String, String)]) -> [UInt8] {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let text = fields.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed)!.replacingOccurrences(of: "%20", with: "+"))"
        }.joined(separator: "&")
        return Array(text.utf8)
    }

    func twilioCallback(
        url: String? = nil, signedURL: String? = nil, _ fields: [(String, String)], signature: String? = nil
    )
        -> ReceiptRequest
    {
        let url = url ?? twilioURL
        return ReceiptRequest(
            url: url,
            headers: [
                ("Content-Type", "application/x-www-form-urlencoded; charset=utf-8"),
                ("x-twilio-signature", signature ?? twilioSignature(url: signedURL ?? url, fields)),
            ],
            body: form(fields))
    }

    /// A message's status callback as Twilio posts it to a StatusCallback.
    func messageFields(_ status: String, errorCode: String? = nil) -> [(String, String)] {
        var fields = [
            ("AccountSid", "AC00000000000000000000000000000001"), ("ApiVersion", "2010-04-01"),
            ("From", "+15017122661"), ("MessageSid", "SM1f0e8ae6ade43cb3c0ce4525424e404f"),
            ("MessageStatus", status), ("SmsSid", "SM1f0e8ae6ade43cb3c0ce4525424e404f"), ("SmsStatus", status),
            ("To", "+15558675310"),
        ]
        if let errorCode { fields.append(("ErrorCode", errorCode)) }
        return fields
    }

    func callFields(_ status: String) -> [(String, String)] {
        [
            ("AccountSid", "AC00000000000000000000000000000001"), ("ApiVersion", "2010-04-01"),
            ("CallSid", "CA42ed11f93dc08b952027ffbc406d0868"), ("CallStatus", status), ("Called", "+15558675310"),
            ("Direction", "outbound-api"), ("From", "+15017122661"), ("To", "+15558675310"),
            ("Timestamp", "Tue, 10 Aug 2027 09:30:00 +0000"),
        ]
    }

    func testTwilioMessageStatusesAreReadFromASignedForm() throws {
        XCTAssertEqual(
            try TwilioReceipts.read(twilioCallback(messageFields("delivered")), authToken: authToken, now: now),
            [DeliveryReceipt(messageId: "SM1f0e8ae6ade43cb3c0ce4525424e404f", status: .delivered)])
        XCTAssertEqual(
            try TwilioReceipts.read(twilioCallback(messageFields("read")), authToken: authToken, now: now).map(
                \.status),
            [.delivered])
        XCTAssertEqual(
            try TwilioReceipts.read(twilioCallback(messageFields("sent")), authToken: authToken, now: now).map(
                \.status),
            [.sent])
        XCTAssertEqual(
            try TwilioReceipts.read(
                twilioCallback(messageFields("undelivered", errorCode: "30003")), authToken: authToken, now: now),
            [DeliveryReceipt(messageId: "SM1f0e8ae6ade43cb3c0ce4525424e404f", status: .failed, errorCode: "30003")])
        // A status that records nothing (an incoming message's) gives no receipt.
        XCTAssertEqual(
            try TwilioReceipts.read(twilioCallback(messageFields("received")), authToken: authToken, now: now), [])
    }

    func testTwilioCallStatusesMapAnsweredToDeliveredAndTheRestByOutcome() throws {
        let id = "CA42ed11f93dc08b952027ffbc406d0868"
        let cases: [(String, DeliveryReceipt)] = [
            ("completed", DeliveryReceipt(messageId: id, status: .delivered)),
            ("in-progress", DeliveryReceipt(messageId: id, status: .delivered)),
            ("ringing", DeliveryReceipt(messageId: id, status: .sent)),
            ("queued", DeliveryReceipt(messageId: id, status: .sent)),
            ("busy", DeliveryReceipt(messageId: id, status: .failed, errorCode: "busy")),
            ("no-answer", DeliveryReceipt(messageId: id, status: .failed, errorCode: "no-answer")),
            ("canceled", DeliveryReceipt(messageId: id, status: .failed, errorCode: "canceled")),
            ("failed", DeliveryReceipt(messageId: id, status: .failed, errorCode: "failed")),
        ]
        for (status, expected) in cases {
            XCTAssertEqual(
                try TwilioReceipts.read(twilioCallback(callFields(status)), authToken: authToken, now: now), [expected],
                status)
        }
    }

    func testTwilioSignsTheWholeURLWithItsQueryAndPort() throws {
        let withQuery = "https://auth.example.com:8443/phoneauth/v1/receipts/twilio?tenant=acme&attempt=2"
        let fields = messageFields("delivered")
        XCTAssertEqual(
            try TwilioReceipts.read(twilioCallback(url: withQuery, fields), authToken: authToken, now: now).count, 1)
        // The same signature does not hold for the URL without its query, or on another port.
        try assertRefused(
            "badSignature",
            TwilioReceipts.read(
                twilioCallback(
                    url: "https://auth.example.com:8443/phoneauth/v1/receipts/twilio", signedURL: withQuery, fields),
                authToken: authToken, now: now))
        try assertRefused(
            "badSignature",
            TwilioReceipts.read(
                twilioCallback(
                    url: withQuery.replacingOccurrences(of: "8443", with: "9443"), signedURL: withQuery, fields),
                authToken: authToken, now: now))
        // Twilio signs the default port or not: both forms are accepted, as its own validators do.
        XCTAssertEqual(
            try TwilioReceipts.read(
                twilioCallback(
                    url: "https://auth.example.com:443/phoneauth/v1/receipts/twilio", signedURL: twilioURL, fields),
                authToken: authToken, now: now
            ).count, 1)
        XCTAssertEqual(
            try TwilioReceipts.read(
                twilioCallback(
                    url: twilioURL, signedURL: "https://auth.example.com:443/phoneauth/v1/receipts/twilio", fields),
                authToken: authToken, now: now
            ).count, 1)
        XCTAssertEqual(
            TwilioReceipts.urlForms("http://[::1]:9099/r?a=1"), ["http://[::1]:9099/r?a=1", "http://[::1]/r?a=1"])
        XCTAssertEqual(TwilioReceipts.urlForms("http://[::1]/r"), ["http://[::1]/r", "http://[::1]:80/r"])
    }

    func testTwilioRefusesAForgedOrMissingSignatureAndAnAlteredBody() throws {
        let fields = messageFields("failed", errorCode: "30007")
        let signature = twilioSignature(url: twilioURL, fields)
        var forged = Array(signature.utf8)
        forged[3] = forged[3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        try assertRefused(
            "badSignature",
            TwilioReceipts.read(
                twilioCallback(fields, signature: String(decoding: forged, as: UTF8.self)), authToken: authToken,
                now: now),
            mustNotContain: [authToken, signature])
        try assertRefused(
            "badSignature",
            TwilioReceipts.read(twilioCallback(fields), authToken: "another-auth-token-0000000000000", now: now))
        var unsigned = twilioCallback(fields)
        unsigned.headers.removeAll { $0.0.lowercased() == "x-twilio-signature" }
        try assertRefused("missingSignature", TwilioReceipts.read(unsigned, authToken: authToken, now: now))
        // The body changed after signing: failed made delivered.
        var altered = twilioCallback(fields)
        altered.body = form(messageFields("delivered", errorCode: "30007"))
        try assertRefused("badSignature", TwilioReceipts.read(altered, authToken: authToken, now: now))
    }

    func testTwilioRefusesWhatIsNotAStatusForm() throws {
        let noSid = [("AccountSid", "AC00000000000000000000000000000001"), ("MessageStatus", "delivered")]
        try assertRefused("malformed", TwilioReceipts.read(twilioCallback(noSid), authToken: authToken, now: now))
        let noStatus = [("MessageSid", "SM1f0e8ae6ade43cb3c0ce4525424e404f")]
        try assertRefused("malformed", TwilioReceipts.read(twilioCallback(noStatus), authToken: authToken, now: now))
        var json = twilioCallback(messageFields("delivered"))
        json.headers[0] = ("Content-Type", "application/json")
        try assertRefused("unsupported", TwilioReceipts.read(json, authToken: authToken, now: now))
    }

    // MARK: Meta (WhatsApp Cloud API)

    let appSecret = "3f1c0a9e5b7d2c4e6f8091a2b3c4d5e6"

    func metaCallback(_ body: String, secret: String? = nil) -> ReceiptRequest {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data(body.utf8), using: SymmetricKey(data: Data((secret ?? appSecret).utf8)))
        let hex = mac.map { String(format: "%02x", $0) }.joined()
        return ReceiptRequest(
            url: "https://auth.example.com/phoneauth/v1/receipts/whatsapp",
            headers: [("Content-Type", "application/json"), ("X-Hub-Signature-256", "sha256=" + hex)],
            body: Array(body.utf8))
    }

    /// A statuses webhook as Meta's reference shows it: two entries, one change each.
    let metaStatuses = """
        {"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"value":{\
        "messaging_product":"whatsapp","metadata":{"display_phone_number":"15550783881","phone_number_id":"106540352242922"},\
        "statuses":[{"id":"wamid.HBgLMTY1MDUwNzY1MjAVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA","status":"delivered",\
        "timestamp":"1750263773","recipient_id":"16505551234","pricing":{"billable":true,"pricing_model":"PMP",\
        "category":"authentication"}},{"id":"wamid.HBgLMTY1MDUwNzY1MjAVAgARGBJBQkNERUYwMTIzNDU2Nzg5AA","status":"read",\
        "timestamp":"1750263780","recipient_id":"16505551234"}]},"field":"messages"}]},{"id":"102290129340398",\
        "changes":[{"value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550783881",\
        "phone_number_id":"106540352242922"},"statuses":[{"id":"wamid.HBgLMTY1MDUwNzY1MjAVAgARGBJGRkZGRkZGRkZGRkZGRkZGAA",\
        "status":"failed","timestamp":"1750263790","recipient_id":"16505550000","errors":[{"code":131026,\
        "title":"Message undeliverable","message":"Message undeliverable","error_data":{"details":"Message Undeliverable."}}]},\
        {"id":"wamid.HBgLMTY1MDUwNzY1MjAVAgARGBJTRU5UMDEyMzQ1Njc4OQA","status":"sent","timestamp":"1750263791",\
        "recipient_id":"16505551234"}]},"field":"messages"}]}]}
        """

    func testMetaStatusesAreReadFromASignedBatch() throws {
        XCTAssertEqual(
            try MetaReceipts.read(metaCallback(metaStatuses), appSecret: appSecret, now: now),
            [
                DeliveryReceipt(
                    messageId: "wamid.HBgLMTY1MDUwNzY1MjAVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA", status: .delivered,
                    at: Timestamp(seconds: 1_750_263_773)),
                DeliveryReceipt(
                    messageId: "wamid.HBgLMTY1MDUwNzY1MjAVAgARGBJBQkNERUYwMTIzNDU2Nzg5AA", status: .delivered,
                    at: Timestamp(seconds: 1_750_263_780)),
                DeliveryReceipt(
                    messageId: "wamid.HBgLMTY1MDUwNzY1MjAVAgARGBJGRkZGRkZGRkZGRkZGRkZGAA", status: .failed,
                    errorCode: "131026", at: Timestamp(seconds: 1_750_263_790)),
                DeliveryReceipt(
                    messageId: "wamid.HBgLMTY1MDUwNzY1MjAVAgARGBJTRU5UMDEyMzQ1Njc4OQA", status: .sent,
                    at: Timestamp(seconds: 1_750_263_791)),
            ])
    }

    func testMetaIncomingMessagesGiveNoReceiptsAndAnIDThatIsNotAPlainTokenIsSkipped() throws {
        let incoming = """
            {"object":"whatsapp_business_account","entry":[{"id":"0","changes":[{"field":"messages","value":{\
            "messaging_product":"whatsapp","metadata":{"display_phone_number":"16505551111","phone_number_id":"123456123"},\
            "contacts":[{"profile":{"name":"test user name"},"wa_id":"16315551181"}],"messages":[{"from":"16315551181",\
            "id":"ABGGFlA5Fpa","timestamp":"1504902988","type":"text","text":{"body":"this is a text message"}}]}}]}]}
            """
        XCTAssertEqual(try MetaReceipts.read(metaCallback(incoming), appSecret: appSecret, now: now), [])
        let odd = """
            {"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"statuses":[\
            {"id":"<script>","status":"delivered","timestamp":"1750263773"},\
            {"id":"wamid.OK","status":"delivered","timestamp":"1750263774"}]}}]}]}
            """
        XCTAssertEqual(
            try MetaReceipts.read(metaCallback(odd), appSecret: appSecret, now: now).map(\.messageId), ["wamid.OK"])
    }

    func testMetaRefusesAForgedMissingSignatureAndAnAlteredBody() throws {
        let signed = metaCallback(metaStatuses)
        let header = signed.header("X-Hub-Signature-256")!
        var forged = signed
        var bytes = Array(header.utf8)
        bytes[bytes.count - 1] = bytes[bytes.count - 1] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        forged.headers[1] = ("X-Hub-Signature-256", String(decoding: bytes, as: UTF8.self))
        try assertRefused(
            "badSignature", MetaReceipts.read(forged, appSecret: appSecret, now: now),
            mustNotContain: [appSecret, header])
        try assertRefused(
            "badSignature",
            MetaReceipts.read(metaCallback(metaStatuses, secret: "another"), appSecret: appSecret, now: now))
        var unsigned = signed
        unsigned.headers.removeLast()
        try assertRefused("missingSignature", MetaReceipts.read(unsigned, appSecret: appSecret, now: now))
        var altered = signed
        altered.body = Array(metaStatuses.replacingOccurrences(of: "\"failed\"", with: "\"read\"").utf8)
        try assertRefused("badSignature", MetaReceipts.read(altered, appSecret: appSecret, now: now))
    }

    func testMetaRefusesASignedBodyThatIsNotAWhatsAppCallback() throws {
        try assertRefused("malformed", MetaReceipts.read(metaCallback("{\"object\":"), appSecret: appSecret, now: now))
        try assertRefused(
            "unsupported",
            MetaReceipts.read(metaCallback("{\"object\":\"page\",\"entry\":[]}"), appSecret: appSecret, now: now))
        try assertRefused(
            "malformed",
            MetaReceipts.read(
                metaCallback("{\"object\":\"whatsapp_business_account\"}"), appSecret: appSecret, now: now))
    }

    // MARK: Vonage

    let signatureSecret = "d0F3bW9yZXNlY3JldHNhcmViZXR0ZXI1"

    func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A JWT as Vonage signs its webhooks: HS256 over the signature secret, claims iat, jti, iss,
    /// payload_hash (hex SHA-256 of the body), api_key, application_id.
    /// `alg` is the header's; `mac` the algorithm that signs (the header's unless given).
    func vonageJWT(
        body: String, iat: Int64? = nil, alg: String = "HS256", mac: String? = nil, secret: String? = nil
    )
        -> String
    {
        let hash = SHA256.hash(data: Data(body.utf8)).map { String(format: "%02x", $0) }.joined()
        let header = base64url(Data("{\"alg\":\"\(alg)\",\"typ\":\"JWT\"}".utf8))
        let claims = base64url(
            Data(
                """
                {"iat":\(iat ?? now.seconds),"jti":"c5ba8f24-1a14-4c10-bfdf-3fbe8ce511b5","iss":"Vonage",\
                "payload_hash":"\(hash)","api_key":"a1b2c3d","application_id":"aaaaaaaa-bbbb-cccc-dddd-0123456789ab"}
                """.utf8))
        let input = Data((header + "." + claims).utf8)
        let key = SymmetricKey(data: Data((secret ?? signatureSecret).utf8))
        switch mac ?? alg {
        case "HS256":
            return header + "." + claims + "."
                + base64url(Data(HMAC<SHA256>.authenticationCode(for: input, using: key)))
        case "HS512":
            return header + "." + claims + "."
                + base64url(Data(HMAC<SHA512>.authenticationCode(for: input, using: key)))
        default: return header + "." + claims + "."
        }
    }

    func vonageCallback(_ body: String, jwt: String? = nil) -> ReceiptRequest {
        ReceiptRequest(
            url: "https://auth.example.com/phoneauth/v1/receipts/vonage",
            headers: [
                ("Authorization", "Bearer " + (jwt ?? vonageJWT(body: body))), ("Content-Type", "application/json"),
            ],
            body: Array(body.utf8))
    }

    func messageStatus(_ status: String, error: String = "") -> String {
        """
        {"message_uuid":"aaaaaaaa-bbbb-cccc-dddd-0123456789ab","to":"447700900000","from":"447700900001",\
        "timestamp":"2027-01-01T14:00:00.000Z","status":"\(status)",\(error)"channel":"whatsapp"}
        """
    }

    func callEvent(_ status: String, extra: String = "") -> String {
        """
        {"from":"447700900001","to":"447700900000","uuid":"0779a56d002f1c7f47f82ef5fe84ab79",\
        "conversation_uuid":"CON-8f5a100c-fbce-4218-8d4b-16341335bcd6","status":"\(status)",\(extra)\
        "direction":"outbound","timestamp":"2027-01-01T14:00:05.582Z"}
        """
    }

    func testVonageMessageStatusesAndCallEventsAreReadUnderASignedJWT() throws {
        let messageAt = Timestamp(rfc3339: "2027-01-01T14:00:00.000Z")
        let uuid = "aaaaaaaa-bbbb-cccc-dddd-0123456789ab"
        XCTAssertEqual(
            try VonageReceipts.read(
                vonageCallback(messageStatus("delivered")), signatureSecret: signatureSecret, now: now),
            [DeliveryReceipt(messageId: uuid, status: .delivered, at: messageAt)])
        XCTAssertEqual(
            try VonageReceipts.read(vonageCallback(messageStatus("read")), signatureSecret: signatureSecret, now: now)
                .map(\.status), [.delivered])
        XCTAssertEqual(
            try VonageReceipts.read(
                vonageCallback(messageStatus("submitted")), signatureSecret: signatureSecret, now: now
            )
            .map(\.status), [.sent])
        let rejected = messageStatus(
            "rejected",
            error: """
                "error":{"type":"https://developer.nexmo.com/api-errors/messages-olympus#1020","title":1020,\
                "detail":"Invalid params","instance":"bf0ca0bf927b3b52e3cb03217e1a1ddf"},
                """)
        XCTAssertEqual(
            try VonageReceipts.read(vonageCallback(rejected), signatureSecret: signatureSecret, now: now),
            [DeliveryReceipt(messageId: uuid, status: .failed, errorCode: "1020", at: messageAt)])
        XCTAssertEqual(
            try VonageReceipts.read(
                vonageCallback(messageStatus("undeliverable")), signatureSecret: signatureSecret, now: now),
            [DeliveryReceipt(messageId: uuid, status: .failed, errorCode: "undeliverable", at: messageAt)])

        let call = "0779a56d002f1c7f47f82ef5fe84ab79", callAt = Timestamp(rfc3339: "2027-01-01T14:00:05.582Z")
        let events: [(String, String, [DeliveryReceipt])] = [
            ("started", "", [DeliveryReceipt(messageId: call, status: .sent, at: callAt)]),
            ("ringing", "", [DeliveryReceipt(messageId: call, status: .sent, at: callAt)]),
            ("answered", "", [DeliveryReceipt(messageId: call, status: .delivered, at: callAt)]),
            ("completed", "\"duration\":\"21\",", [DeliveryReceipt(messageId: call, status: .delivered, at: callAt)]),
            // The end of a call nobody answered says nothing new: its failure came before.
            ("completed", "\"duration\":\"0\",", []),
            (
                "unanswered", "",
                [DeliveryReceipt(messageId: call, status: .failed, errorCode: "unanswered", at: callAt)]
            ),
            ("busy", "", [DeliveryReceipt(messageId: call, status: .failed, errorCode: "busy", at: callAt)]),
            ("timeout", "", [DeliveryReceipt(messageId: call, status: .failed, errorCode: "timeout", at: callAt)]),
            ("cancelled", "", [DeliveryReceipt(messageId: call, status: .failed, errorCode: "cancelled", at: callAt)]),
            ("disconnected", "", []),
        ]
        for (status, extra, expected) in events {
            XCTAssertEqual(
                try VonageReceipts.read(
                    vonageCallback(callEvent(status, extra: extra)), signatureSecret: signatureSecret, now: now),
                expected,
                status)
        }
    }

    func testVonageRefusesAForgedMissingOrOtherwiseSignedJWTAndAnAlteredBody() throws {
        let body = messageStatus("delivered")
        let jwt = vonageJWT(body: body)
        var forged = Array(jwt.utf8)
        let last = forged.count - 2
        forged[last] = forged[last] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        try assertRefused(
            "badSignature",
            VonageReceipts.read(
                vonageCallback(body, jwt: String(decoding: forged, as: UTF8.self)), signatureSecret: signatureSecret,
                now: now),
            mustNotContain: [signatureSecret, jwt])
        try assertRefused(
            "badSignature",
            VonageReceipts.read(
                vonageCallback(body, jwt: vonageJWT(body: body, secret: "another-signature-secret-00000000")),
                signatureSecret: signatureSecret, now: now))
        var unsigned = vonageCallback(body)
        unsigned.headers.removeFirst()
        try assertRefused("missingSignature", VonageReceipts.read(unsigned, signatureSecret: signatureSecret, now: now))
        // The body changed after signing: its hash is no longer the one the JWT signs.
        var altered = vonageCallback(body)
        altered.body = Array(messageStatus("read").utf8)
        try assertRefused("badSignature", VonageReceipts.read(altered, signatureSecret: signatureSecret, now: now))
        // A token that names another algorithm is refused, signed or not.
        try assertRefused(
            "badSignature",
            VonageReceipts.read(
                vonageCallback(body, jwt: vonageJWT(body: body, alg: "none")), signatureSecret: signatureSecret,
                now: now))
        try assertRefused(
            "badSignature",
            VonageReceipts.read(
                vonageCallback(body, jwt: vonageJWT(body: body, alg: "HS512")), signatureSecret: signatureSecret,
                now: now))
        // Even with an HS256 signature that holds: the header must say HS256.
        for alg in ["none", "HS512", "hs256", "RS256"] {
            try assertRefused(
                "badSignature",
                VonageReceipts.read(
                    vonageCallback(body, jwt: vonageJWT(body: body, alg: alg, mac: "HS256")),
                    signatureSecret: signatureSecret, now: now))
        }
        try assertRefused(
            "badSignature",
            VonageReceipts.read(vonageCallback(body, jwt: "not.a-jwt"), signatureSecret: signatureSecret, now: now))
    }

    func testVonageRefusesAJWTIssuedMoreThanFiveMinutesAway() throws {
        let body = messageStatus("delivered")
        for iat in [now.seconds - 300, now.seconds + 300] {
            XCTAssertEqual(
                try VonageReceipts.read(
                    vonageCallback(body, jwt: vonageJWT(body: body, iat: iat)), signatureSecret: signatureSecret,
                    now: now
                ).count, 1)
        }
        for iat in [now.seconds - 301, now.seconds + 301, Int64.min, Int64.max] {
            try assertRefused(
                "stale",
                VonageReceipts.read(
                    vonageCallback(body, jwt: vonageJWT(body: body, iat: iat)), signatureSecret: signatureSecret,
                    now: now))
        }
    }

    func testVonageRefusesWhatItDoesNotRead() throws {
        // The SMS API's delivery receipt, signed with `sig` rather than a JWT.
        let dlr = ReceiptRequest(
            url: "https://auth.example.com/phoneauth/v1/receipts/vonage",
            headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array(
                "msisdn=447700900000&to=AcmeInc&network-code=12345&messageId=0A0000001234567B&status=delivered&err-code=0&sig=abc"
                    .utf8))
        try assertRefused("unsupported", VonageReceipts.read(dlr, signatureSecret: signatureSecret, now: now))
        try assertRefused(
            "malformed",
            VonageReceipts.read(vonageCallback("{\"hello\":\"world\"}"), signatureSecret: signatureSecret, now: now))
        try assertRefused(
            "malformed", VonageReceipts.read(vonageCallback("[1,2"), signatureSecret: signatureSecret, now: now))
    }

    // MARK: Support

    /// `body` throws invalidArgument with `reason`, and its message repeats none of `mustNotContain`.
    func assertRefused(
        _ reason: String, _ body: @autoclosure () throws -> [DeliveryReceipt], mustNotContain: [String] = [],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        do {
            let receipts = try body()
            XCTFail("accepted: \(receipts)", file: file, line: line)
        } catch let error as PhoneAuthError {
            XCTAssertEqual(error.code, .invalidArgument, file: file, line: line)
            XCTAssertEqual(error.detail("reason"), .string(reason), error.message, file: file, line: line)
            for secret in mustNotContain {
                XCTAssertFalse(error.message.contains(secret), error.message, file: file, line: line)
                XCTAssertFalse(JSONCodec.serialize(error.jsonValue).contains(secret), file: file, line: line)
            }
        }
    }
}
