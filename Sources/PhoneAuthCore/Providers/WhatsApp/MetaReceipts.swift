import Crypto

/// The WhatsApp Cloud API's webhooks: a JSON body signed in `X-Hub-Signature-256` as
/// "sha256=" + hex(HMAC-SHA256(app secret, raw body)). Statuses arrive batched under
/// entry[].changes[].value.statuses[] (id is the wamid, status sent/delivered/read/failed,
/// timestamp Unix seconds as a string, errors[{code, title}] when failed); a callback carrying only
/// incoming `messages` has none.
package enum MetaReceipts {
    package static func read(
        _ r: ReceiptRequest, appSecret: String, now: Timestamp
    ) throws(PhoneAuthError)
        -> [DeliveryReceipt]
    {
        guard let header = r.header("X-Hub-Signature-256"), !header.isEmpty else {
            throw refused(
                .missingSignature, "The WhatsApp callback has no X-Hub-Signature-256 header.", field: Self.header)
        }
        var mac = HMAC<SHA256>(key: SymmetricKey(data: Array(appSecret.utf8)))
        mac.update(data: r.body)
        let expected = Array("sha256=".utf8) + hex(Array(mac.finalize()))
        guard SecureBytes.equal(expected, Array(header.lowercased().utf8)) else {
            throw refused(
                .badSignature, "The WhatsApp callback's signature does not match its body under the app secret.",
                field: Self.header)
        }
        guard let payload = try? JSONCodec.parse(bytes: r.body), payload.isObject else {
            throw refused(.malformed, "The WhatsApp callback's body is not a JSON object.", field: "body")
        }
        guard payload["object"]?.stringValue == "whatsapp_business_account" else {
            throw refused(.unsupported, "The callback is not a WhatsApp Business Account's.", field: "object")
        }
        guard let entries = payload["entry"]?.arrayValue else {
            throw refused(.malformed, "The WhatsApp callback has no entry array.", field: "entry")
        }
        var receipts: [DeliveryReceipt] = []
        for entry in entries {
            for change in entry["changes"]?.arrayValue ?? [] {
                for status in change["value"]?["statuses"]?.arrayValue ?? [] {
                    if let receipt = receipt(status) { receipts.append(receipt) }
                }
            }
        }
        return receipts
    }

    /// One status; nil for an ID that is not a plain token or a status that records nothing.
    private static func receipt(_ status: JSONValue) -> DeliveryReceipt? {
        guard let id = ProviderAnswer.token(status["id"]) else { return nil }
        let at = status["timestamp"]?.stringValue.flatMap { Int64($0) }.map { Timestamp(seconds: $0) }
        switch status["status"]?.stringValue {
        case "sent": return DeliveryReceipt(messageId: id, status: .sent, at: at)
        case "delivered", "read": return DeliveryReceipt(messageId: id, status: .delivered, at: at)
        case "failed":
            // 131026: the number is not on WhatsApp or cannot receive the message.
            let code = ProviderAnswer.token(status["errors"]?.arrayValue?.first?["code"])
            return DeliveryReceipt(messageId: id, status: .failed, errorCode: code, at: at)
        default: return nil
        }
    }

    private static let header = "X-Hub-Signature-256"

    private static func hex(_ bytes: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }
    }

    private static func refused(_ reason: ReceiptRefusal, _ message: String, field: String) -> PhoneAuthError {
        reason.error(message, field: field)
    }
}

extension MetaReceipts {
    /// Meta's check of a callback URL being subscribed (a GET with `hub.mode=subscribe`,
    /// `hub.verify_token` and `hub.challenge` in its query): the challenge to answer with, when
    /// the token is the one configured.
    static func challenge(url: String, verifyToken: String) throws(PhoneAuthError) -> String {
        let query = url.firstIndex(of: "?").map { String(url[url.index(after: $0)...]) } ?? ""
        guard let items = PercentEncoding.queryItems(query) else {
            throw refused(.malformed, "The subscription check's query cannot be read.", field: "url")
        }
        func item(_ name: String) -> String? { items.first { $0.0 == name }?.1 }
        guard item("hub.mode") == "subscribe", let token = item("hub.verify_token") else {
            throw refused(
                .malformed, "The subscription check has no hub.mode=subscribe and hub.verify_token.", field: "url")
        }
        guard SecureBytes.equal(Array(token.utf8), Array(verifyToken.utf8)) else {
            throw refused(
                .badSignature, "The subscription check's hub.verify_token is not the configured one.", field: "url")
        }
        // It is echoed as the answer's body: only a short plain token.
        guard let challenge = item("hub.challenge"), (1...128).contains(challenge.utf8.count),
            challenge.utf8.allSatisfy(ASCII.isLetterOrDigit)
        else {
            throw refused(
                .malformed, "The subscription check's hub.challenge must be 1 to 128 letters or digits.", field: "url")
        }
        return challenge
    }
}
