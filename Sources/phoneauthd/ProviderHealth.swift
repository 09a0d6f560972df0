import PhoneAuthCore
import PhoneAuthKit

/// An SMS provider's breaker for one channel as its last event told it (`providerSkipped`,
/// `providerRestored`): what the console's Delivery page shows. Each engine (process) keeps its
/// own breakers, so this is this server's view since it started.
struct ProviderHealth: Sendable, Equatable {
    let provider: String
    /// Absent for a callback or the console, which carry every channel through one breaker.
    let channel: String?
    /// Skipped (messages go to the next provider) or restored (a probe worked).
    let skipped: Bool
    /// When the event happened, as the engine wrote it.
    let at: String
    /// Until when it is skipped (the event's time plus its `seconds`), when skipped.
    let skippedUntil: String?
    /// Failures in a row that opened the breaker, and the last one's reason, when skipped.
    let failures: Int?
    let reason: String?

    /// The breaker's state from a `providerSkipped` or `providerRestored` event; nil for others.
    init?(_ event: Event) {
        guard event.name == "providerSkipped" || event.name == "providerRestored",
            let provider = event.string("provider")
        else { return nil }
        self.provider = provider
        channel = event.string("channel")
        skipped = event.name == "providerSkipped"
        at = event.time
        failures = skipped ? event.int("failures") : nil
        reason = skipped ? event.string("reason") : nil
        skippedUntil =
            skipped
            ? Timestamp(rfc3339: event.time).map { $0.adding(seconds: Int64(event.int("seconds") ?? 0)).rfc3339 }
            : nil
    }

    /// One entry per provider and channel.
    var key: String { provider + "\u{0}" + (channel ?? "") }
}
