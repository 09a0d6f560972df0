import Crypto

/// Vonage's signed webhooks (Messages API statuses, Voice API events): `Authorization: Bearer
/// <JWT>` signed HS256 with the account's signature secret, whose claims hold `iat` (seconds),
/// `jti` and `payload_hash`, the hex SHA-256 of the body. The token is refused unless its
/// algorithm is exactly HS256 (a token cannot pick `none` or another key's algorithm), and when
/// issued more than five minutes from `now`, so a captured callback cannot be replayed later.
/// The SMS API's delivery receipts (signed with `sig` in the fields) are not read here.
package enum VonageReceipts {
    /// How far `iat` may be from now, either way (clocks differ a little; a replay comes later).
    package static let maxSkewSeconds: Int64 = 300

    package static func read(
        _ r: ReceiptRequest, signatureSecret: String, now: Timestamp
    ) throws(PhoneAuthError)
        -> [DeliveryReceipt]
    {
        guard let authorization = r.header("Authorization"), !authorization.isEmpty else {
            if isSMSReceipt(r) {
                throw refused(
                    .unsupported,
                    "Vonage SMS API delivery receipts (signed with 'sig') are not supported; "
                        + "send through the Messages API, whose callbacks are signed with a JWT.", field: "body")
            }
            throw refused(
                .missingSignature, "The Vonage callback has no Authorization header.", field: "Authorization")
        }
        let claims = try verifiedClaims(authorization, secret: signatureSecret)
        guard let iat = claims["iat"]?.intValue else {
            throw refused(.malformed, "The Vonage JWT has no numeric 'iat' claim.", field: "Authorization")
        }
        // Compared without subtracting, so no iat can overflow.
        guard iat >= now.seconds - maxSkewSeconds, iat <= now.seconds + maxSkewSeconds else {
            throw refused(
                .stale, "The Vonage JWT's iat (\(iat)) is more than \(maxSkewSeconds) s from now: too old to accept.",
                field: "Authorization")
        }
        guard let hash = claims["payload_hash"]?.stringValue else {
            throw refused(.malformed, "The Vonage JWT has no 'payload_hash' claim.", field: "Authorization")
        }
        guard SecureBytes.equal(hex(Array(SHA256.hash(data: r.body))), Array(hash.lowercased().utf8)) else {
            throw refused(
                .badSignature, "The Vonage callback's body does not match the payload_hash its JWT signs.",
                field: "body")
        }
        guard let payload = try? JSONCodec.parse(bytes: r.body), payload.isObject else {
            throw refused(.malformed, "The Vonage callback's body is not a JSON object.", field: "body")
        }
        if payload["message_uuid"] != nil { return messageStatus(payload).map { [$0] } ?? [] }
        if payload["uuid"] != nil, payload["status"] != nil { return callEvent(payload).map { [$0] } ?? [] }
        throw refused(
            .malformed,
            "The Vonage callback is neither a message status (message_uuid) nor a call event (uuid, status).",
            field: "body")
    }

    /// The claims of a bearer JWT whose HS256 signature `secret` made; refused otherwise.
    private static func verifiedClaims(_ authorization: String, secret: String) throws(PhoneAuthError) -> JSONValue {
        guard authorization.hasPrefix("Bearer "), let jwt = JWT.decode(String(authorization.dropFirst(7))) else {
            throw refused(
                .badSignature, "The Vonage Authorization header is not a bearer JWT.", field: "Authorization")
        }
        guard jwt.header["alg"]?.stringValue == "HS256" else {
            let named = jwt.header["alg"]?.stringValue.flatMap { ProviderAnswer.token(.string($0)) }
            throw refused(
                .badSignature,
                "The Vonage JWT's algorithm is \(named.map { "'\($0)'" } ?? "not given"); only HS256 is accepted.",
                field: "Authorization")
        }
        let mac = HMAC<SHA256>.authenticationCode(for: jwt.signingInput, using: SymmetricKey(data: Array(secret.utf8)))
        guard SecureBytes.equal(Array(mac), jwt.signature) else {
            throw refused(
                .badSignature, "The Vonage JWT's signature does not match under the signature secret.",
                field: "Authorization")
        }
        return jwt.claims
    }

    /// A Messages API status: submitted, delivered, read, rejected, undeliverable.
    private static func messageStatus(_ payload: JSONValue) -> DeliveryReceipt? {
        guard let id = ProviderAnswer.token(payload["message_uuid"]) else { return nil }
        let at = payload["timestamp"]?.stringValue.flatMap { Timestamp(rfc3339: $0) }
        switch payload["status"]?.stringValue {
        case "submitted": return DeliveryReceipt(messageId: id, status: .sent, at: at)
        case "delivered", "read": return DeliveryReceipt(messageId: id, status: .delivered, at: at)
        case let status? where status == "rejected" || status == "undeliverable":
            return DeliveryReceipt(
                messageId: id, status: .failed, errorCode: errorCode(payload["error"]) ?? status, at: at)
        default: return nil
        }
    }

    /// The code of a Messages API error: its `type` is a URL whose fragment is the code
    /// (…/messages-olympus#1020), and `title` may hold it too.
    private static func errorCode(_ error: JSONValue?) -> String? {
        if let type = error?["type"]?.stringValue, let hash = type.lastIndex(of: "#"),
            let code = ProviderAnswer.token(.string(String(type[type.index(after: hash)...])))
        {
            return code
        }
        return ProviderAnswer.token(error?["type"]) ?? ProviderAnswer.token(error?["title"])
    }

    /// A Voice API event: the call's progress, answered, or why it was not.
    private static func callEvent(_ payload: JSONValue) -> DeliveryReceipt? {
        guard let id = ProviderAnswer.token(payload["uuid"]), let status = payload["status"]?.stringValue else {
            return nil
        }
        let at = payload["timestamp"]?.stringValue.flatMap { Timestamp(rfc3339: $0) }
        switch status {
        case "started", "ringing": return DeliveryReceipt(messageId: id, status: .sent, at: at)
        case "answered": return DeliveryReceipt(messageId: id, status: .delivered, at: at)
        case "completed":
            // The end of a call; one that lasted no time was never answered, and its failure came before.
            if payload["duration"]?.stringValue == "0" || payload["duration"]?.intValue == 0 { return nil }
            return DeliveryReceipt(messageId: id, status: .delivered, at: at)
        case "busy", "failed", "timeout", "unanswered", "rejected", "cancelled":
            return DeliveryReceipt(messageId: id, status: .failed, errorCode: status, at: at)
        default: return nil  // disconnected, human/machine, input, record, transfer: nothing to record
        }
    }

    /// An SMS API delivery receipt: its fields (messageId, err-code) in a form or JSON body.
    private static func isSMSReceipt(_ r: ReceiptRequest) -> Bool {
        let text = String(decoding: r.body, as: UTF8.self)
        if let payload = try? JSONCodec.parse(bytes: r.body), payload["messageId"] != nil { return true }
        let query = r.url.firstIndex(of: "?").map { String(r.url[r.url.index(after: $0)...]) } ?? ""
        return [text, query].contains { (PercentEncoding.queryItems($0) ?? []).contains { $0.0 == "messageId" } }
    }

    private static func hex(_ bytes: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }
    }

    private static func refused(_ reason: ReceiptRefusal, _ message: String, field: String) -> PhoneAuthError {
        reason.error(message, field: field)
    }
}
