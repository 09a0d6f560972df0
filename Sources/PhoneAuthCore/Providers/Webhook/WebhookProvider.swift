import Crypto

/// The host's own endpoint: a POST of {to, body, languageCode, verificationId, purpose} as JSON,
/// signed as the Standard Webhooks specification says, so any of its libraries verifies it:
/// `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 of
/// HMAC-SHA256("id.timestamp.body")>` under the key a `whsec_` secret encodes in base64.
/// The ID is the same for every attempt at one message, so a receiver can drop a repeat.
/// A 2xx is sent (a `messageId` string in a JSON answer is recorded); a 4xx whose JSON answer
/// says {"error": "invalidNumber"} gives the message up.
/// A WhatsApp message or a call adds `channel` ("whatsapp", "voice") and `code` (the code alone,
/// for the host's template); an SMS is sent as it always was.
struct WebhookProvider: HTTPProvider {
    let endpoint: HTTPEndpoint
    let key: SymmetricKey
    var channels: Set<Channel> = [.sms]

    /// The signing key of a `whsec_…` secret, or nil when it is not one.
    static func key(fromSecret secret: String) -> SymmetricKey? {
        guard secret.hasPrefix("whsec_"), let bytes = Base64.decode(String(secret.dropFirst(6))), bytes.count >= 16
        else {
            return nil
        }
        return SymmetricKey(data: bytes)
    }

    func request(for message: SMSMessage, now: Timestamp) -> HTTPRequest {
        var fields: [(String, JSONValue)] = [
            ("to", .string(message.to)), ("body", .string(message.body)),
            ("languageCode", .string(message.languageCode)),
            ("verificationId", .string(message.verificationId)), ("purpose", .string(message.purpose)),
            ("encoding", .string(message.cost.encoding.rawValue)), ("segments", .int(Int64(message.cost.segments))),
        ]
        if message.channel != .sms {
            fields += [("channel", .string(message.channel.rawValue)), ("code", .string(message.code))]
        }
        return signedPost(.object(fields), id: Self.messageId(message), now: now)
    }

    /// A POST of `payload` as JSON with the Standard Webhooks headers.
    /// The webhook-id a receiver drops repeats by: one per delivery (a retry of it repeats it;
    /// a resend or a fallback is a delivery of its own).
    static func messageId(_ message: SMSMessage) -> String {
        message.delivery == 1 ? "msg_\(message.verificationId)" : "msg_\(message.verificationId)_\(message.delivery)"
    }

    func signedPost(_ payload: JSONValue, id: String, now: Timestamp) -> HTTPRequest {
        signedPost(body: Array(JSONCodec.serialize(payload).utf8), id: id, now: now)
    }

    /// A POST of `body`, JSON already, with the Standard Webhooks headers.
    func signedPost(body: [UInt8], id: String, now: Timestamp) -> HTTPRequest {
        let timestamp = String(now.milliseconds / 1000)
        return post(
            endpoint.baseUrl, body: body,
            headers: [
                "Content-Type: application/json", "webhook-id: \(id)", "webhook-timestamp: \(timestamp)",
                "webhook-signature: \(Self.signature(id: id, timestamp: timestamp, body: body, key: key))",
            ])
    }

    static func signature(id: String, timestamp: String, body: [UInt8], key: SymmetricKey) -> String {
        var hmac = HMAC<SHA256>(key: key)
        hmac.update(data: Array("\(id).\(timestamp).".utf8))
        hmac.update(data: body)
        return "v1," + Base64.encode(Array(hmac.finalize()))
    }

    func interpret(status: Int, body: [UInt8]) -> SMSSendResult {
        let answer = ProviderAnswer.object(body)
        if (200..<300).contains(status) { return .sent(messageId: ProviderAnswer.token(answer?["messageId"])) }
        if (400..<500).contains(status), answer?["error"]?.stringValue == "invalidNumber" {
            return .invalidNumber(DeliveryProblem(.invalidNumber, httpStatus: status))
        }
        return .providerFault(DeliveryProblem(.providerFault, httpStatus: status))
    }
}
