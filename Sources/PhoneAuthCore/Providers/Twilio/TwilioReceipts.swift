import Crypto

/// Twilio's status callbacks for a message (MessageSid, MessageStatus, ErrorCode) or a call
/// (CallSid, CallStatus), POSTed as a form and signed in `X-Twilio-Signature`:
/// base64(HMAC-SHA1(auth token, the URL Twilio called + each form field's name and value, sorted
/// by name)). Twilio's own validators accept the URL with and without the port, as Twilio is not
/// consistent about it, so this does too.
package enum TwilioReceipts {
    package static func read(
        _ r: ReceiptRequest, authToken: String, now: Timestamp
    ) throws(PhoneAuthError)
        -> [DeliveryReceipt]
    {
        guard let signature = r.header("X-Twilio-Signature"), !signature.isEmpty else {
            throw refused(.missingSignature, "The Twilio callback has no X-Twilio-Signature header.", field: header)
        }
        // A Webhooks Rule signs with its own shared key, which the provider entry does not hold.
        if r.header("X-Twilio-Webhooks-Signature-Settings") != nil {
            throw refused(
                .unsupported,
                "The Twilio callback is signed by a Webhooks Rule's shared key; only the auth token is supported.",
                field: header)
        }
        if let type = r.header("Content-Type"), !type.lowercased().hasPrefix("application/x-www-form-urlencoded") {
            throw refused(
                .unsupported, "The Twilio callback is not a form (application/x-www-form-urlencoded).",
                field: "Content-Type")
        }
        guard let text = String(validating: r.body, as: UTF8.self), let fields = PercentEncoding.queryItems(text) else {
            throw refused(.malformed, "The Twilio callback's form body cannot be read.", field: "body")
        }
        let key = SymmetricKey(data: Array(authToken.utf8))
        let signed = signedText(fields)
        let presented = Array(signature.utf8)
        var matched = false
        for url in urlForms(r.url) {
            var mac = HMAC<Insecure.SHA1>(key: key)
            mac.update(data: Array(url.utf8))
            mac.update(data: signed)
            if SecureBytes.equal(Array(Base64.encode(Array(mac.finalize())).utf8), presented) { matched = true }
        }
        guard matched else {
            throw refused(
                .badSignature,
                "The Twilio callback's signature does not match its URL and form under the auth token "
                    + "(is the public URL the one Twilio called?).", field: header)
        }
        return try receipt(fields).map { [$0] } ?? []
    }

    private static let header = "X-Twilio-Signature"

    /// The fields' names and values, sorted by name (and by value for a repeated name), with no separators.
    private static func signedText(_ fields: [(String, String)]) -> [UInt8] {
        let sorted = fields.map { (Array($0.0.utf8), Array($0.1.utf8)) }.sorted { a, b in
            a.0 != b.0 ? a.0.lexicographicallyPrecedes(b.0) : a.1.lexicographicallyPrecedes(b.1)
        }
        return sorted.flatMap { $0.0 + $0.1 }
    }

    /// The URL as given, and with its port taken off (or the scheme's default port put on).
    static func urlForms(_ url: String) -> [String] {
        guard let schemeEnd = url.ranges(of: "://").first else { return [url] }
        let head = String(url[..<schemeEnd.upperBound])
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = String(rest[..<authorityEnd])
        let tail = String(rest[authorityEnd...])
        // The port's colon comes after an IPv6 address's closing bracket.
        let hostEnd = authority.lastIndex(of: "]") ?? authority.startIndex
        if let colon = authority[hostEnd...].lastIndex(of: ":") {
            return [url, head + String(authority[..<colon]) + tail]
        }
        let port = head.lowercased() == "https://" ? "443" : "80"
        return [url, head + authority + ":" + port + tail]
    }

    /// The callback's receipt; nil for a status that records nothing or an ID that is not a plain token.
    private static func receipt(_ fields: [(String, String)]) throws(PhoneAuthError) -> DeliveryReceipt? {
        func field(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }
        if let sid = field("MessageSid") ?? field("SmsSid") {
            guard let status = field("MessageStatus") ?? field("SmsStatus") else {
                throw refused(.malformed, "The Twilio message callback has no MessageStatus.", field: "MessageStatus")
            }
            guard let id = ProviderAnswer.token(.string(sid)) else { return nil }
            switch status {
            case "delivered", "read": return DeliveryReceipt(messageId: id, status: .delivered)
            case "queued", "accepted", "scheduled", "sending", "sent":
                return DeliveryReceipt(messageId: id, status: .sent)
            case "undelivered", "failed", "canceled":
                let code = field("ErrorCode").flatMap { ProviderAnswer.token(.string($0)) }
                return DeliveryReceipt(messageId: id, status: .failed, errorCode: code ?? status)
            default: return nil  // receiving, received, partially_delivered: nothing to record
            }
        }
        if let sid = field("CallSid") {
            guard let status = field("CallStatus") else {
                throw refused(.malformed, "The Twilio call callback has no CallStatus.", field: "CallStatus")
            }
            guard let id = ProviderAnswer.token(.string(sid)) else { return nil }
            switch status {
            // Completed means answered and ended: a call nobody took ends as no-answer or busy.
            case "in-progress", "completed": return DeliveryReceipt(messageId: id, status: .delivered)
            case "queued", "initiated", "ringing": return DeliveryReceipt(messageId: id, status: .sent)
            case "busy", "failed", "no-answer", "canceled":
                return DeliveryReceipt(messageId: id, status: .failed, errorCode: status)
            default: return nil
            }
        }
        throw refused(.malformed, "The Twilio callback has neither a MessageSid nor a CallSid.", field: "body")
    }

    private static func refused(_ reason: ReceiptRefusal, _ message: String, field: String) -> PhoneAuthError {
        reason.error(message, field: field)
    }
}
