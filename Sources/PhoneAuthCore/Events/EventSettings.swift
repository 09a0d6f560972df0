/// The `events` configuration: that events are recorded at all (the key is present), where they
/// are delivered, and whether they carry phone numbers in full.
package struct EventSettings: Sendable {
    /// The receiver, whose requests are signed as the SMS webhook's are (Standard Webhooks:
    /// `url`, `secret` or `secretEnv`, timeouts, `caFile`). nil: only an in-process handler
    /// takes the events (they wait in the store until one is installed).
    var webhook: WebhookProvider?
    package var hasWebhook: Bool { webhook != nil }
    /// Numbers in events in full; by default masked as in logs (+*******3434).
    package var includePhoneNumbers = false
    /// The first retry's delay; each later one doubles, up to maxRetryMs.
    package var retryMs: Int64 = 1000
    package var maxRetryMs: Int64 = 300_000

    /// The keys that are not the receiver's: what is recorded and how it is retried.
    package static let ownKeys: Set<String> = ["includePhoneNumbers", "retryMs", "maxRetryMs"]

    static func read(_ r: ObjectReader) throws(PhoneAuthError) -> EventSettings {
        var settings = EventSettings()
        settings.includePhoneNumbers = try r.bool("includePhoneNumbers") ?? false
        settings.retryMs = try r.int("retryMs", in: 10...3_600_000) ?? settings.retryMs
        settings.maxRetryMs = try r.int("maxRetryMs", in: settings.retryMs...86_400_000) ?? settings.maxRetryMs
        let rest = r.entries.filter { !ownKeys.contains($0.0) }
        if !rest.isEmpty {
            settings.webhook = try ProviderSettings.readWebhook(
                try ObjectReader(.object(rest), code: .invalidConfiguration, path: "events"), path: "events")
        }
        return settings
    }

    /// The delay before retry number `attempt` (1: the first retry).
    func backoffMs(attempt: Int) -> Int64 {
        min(maxRetryMs, retryMs << Int64(min(max(attempt, 1) - 1, 30)))
    }

    /// `phone` as events show it.
    func shown(_ phone: String?) -> JSONValue? {
        phone.map { .string(includePhoneNumbers ? $0 : PhoneNumber.mask($0)) }
    }
}
