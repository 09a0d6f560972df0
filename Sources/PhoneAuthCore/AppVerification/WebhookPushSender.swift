/// Hands the verification push to the host's own endpoint (`appVerification.pushWebhook`), which
/// forwards it to APNs or FCM: a POST of {appToken, tokenType, payload}, signed as the SMS webhook
/// is (Standard Webhooks). For hosts that cannot install a push sender callback, such as phoneauthd.
/// The payload holds the receipt's secret: the endpoint must be the host's own, over HTTPS or loopback.
final class WebhookPushSender: PushSender, Sendable {
    private let webhook: WebhookProvider
    private let client = HTTPClient()
    private let clock: Clock

    init(webhook: WebhookProvider, clock: Clock) {
        self.webhook = webhook
        self.clock = clock
    }

    /// Whether the endpoint accepted the push (a 2xx answer).
    func send(appToken: String, tokenType: String, payload: JSONValue) -> Bool {
        let body: JSONValue = .object([
            ("appToken", .string(appToken)), ("tokenType", .string(tokenType)), ("payload", payload),
        ])
        let id = "push_" + Base64URL.encode(SecureBytes.random(count: 12))
        guard case let .answered(status, _, _) = client.post(webhook.signedPost(body, id: id, now: clock.now())) else {
            return false
        }
        return (200..<300).contains(status)
    }
}
