/// Reading a `type: "webhook"` entry of sms.providers, and the same object elsewhere
/// (appVerification.pushWebhook, events).
extension ProviderSettings {
    /// A webhook entry: the host's own endpoint at `url`, which gets each message signed the
    /// Standard Webhooks way with `secret`.
    static func readWebhookEntry(
        _ r: ObjectReader, path: String, type: String, channels: Set<Channel>
    ) throws(PhoneAuthError) -> WebhookProvider {
        try r.rejectUnknown(commonKeys.union(["url", "secret", "secretEnv"]).subtracting(["baseUrl"]))
        guard let url = try r.string("url") else {
            throw bad("\(path).url", "is required: the URL the webhook is sent to")
        }
        let endpoint = try HTTPEndpoint.read(r, path: path, type: type, url: (url, "url"))
        guard let secret = try ConfiguredSecret.read(r, "secret", path: path) else {
            throw bad("\(path).secret", "(or secretEnv) is required")
        }
        guard let key = WebhookProvider.key(fromSecret: secret) else {
            throw bad(
                "\(path).secret", "must be a Standard Webhooks secret: whsec_ and at least 16 bytes in base64")
        }
        return WebhookProvider(endpoint: endpoint, key: key, channels: channels)
    }

    /// `appVerification.pushWebhook`: a webhook object as in sms.providers, without `type`.
    /// A Standard Webhooks endpoint at `path` (appVerification.pushWebhook, events): url, secret
    /// (or secretEnv), name, timeouts, caFile.
    static func readWebhook(_ r: ObjectReader, path: String) throws(PhoneAuthError) -> WebhookProvider {
        guard r.value("type") == nil else {
            throw bad("\(path).type", "is not used: it is always a webhook")
        }
        for key in ["channels", "receiptUrl"] where r.value(key) != nil {
            throw bad("\(path).\(key)", "is not used here: it belongs to sms.providers")
        }
        let typed = try ObjectReader(
            .object(r.entries + [("type", .string("webhook"))]), code: .invalidConfiguration, path: path)
        guard let provider = try readOne(typed, path: path) as? WebhookProvider else {
            throw bad(path, "must be a webhook")
        }
        return provider
    }
}
