/// Delivery receipts: a provider's callback, checked by the provider's own signature scheme and
/// applied to the deliveries it names (reportDelivery; phoneauthd's receipt route).
package final class ReceiptService: Sendable {
    private let providers: [any HTTPProvider]
    private let fallback: FallbackPolicy
    private let clock: Clock
    private let store: any OutboxStore
    private let worker: DeliveryWorker
    private let events: EventLog

    init(config: EngineConfig, clock: Clock, store: any OutboxStore, worker: DeliveryWorker, events: EventLog) {
        providers = config.smsProviders
        fallback = config.fallbackPolicy
        self.clock = clock
        self.store = store
        self.worker = worker
        self.events = events
    }

    /// Checks the callback `request` of the provider entry named `name` and applies its receipts.
    package func reportDelivery(provider name: String?, _ request: ReceiptRequest) throws -> [AppliedReceipt] {
        let (name, provider) = try entry(named: name)
        let now = clock.now()
        let receipts = try provider.receipts(from: request, now: now)
        let applied = try store.applyReceipts(receipts, provider: name, now: now, fallback: fallback)
        for receipt in applied { tell(receipt, provider: name, at: now) }
        // A fallback is due now in the store: this engine's worker takes it at once.
        if applied.contains(where: { if case .fellBack = $0.effect { true } else { false } }) { worker.lookNow() }
        return applied
    }

    /// The answer to the subscription check (Meta's) of the entry named `name` at `url`.
    package func confirmSubscription(provider name: String?, url: String?) throws -> String {
        guard let url, url.utf8.count <= 2048 else {
            throw PhoneAuthError(
                .invalidArgument, "The field 'url' (the URL the provider called, with its query) is required.",
                details: [("field", .string("url"))])
        }
        return try entry(named: name).provider.subscriptionChallenge(url: url)
    }

    private func entry(named name: String?) throws -> (name: String, provider: any HTTPProvider) {
        guard let name, !name.isEmpty else {
            throw PhoneAuthError(
                .invalidArgument, "The field 'provider' (the name of an sms.providers entry) is required.",
                details: [("field", .string("provider"))])
        }
        guard let provider = providers.first(where: { $0.endpoint.name == name }) else {
            throw ReceiptRefusal.unknownProvider.error(
                "No entry of sms.providers is named \(Echo.isQuotable(name) ? "'\(name)'" : "so").", field: "provider")
        }
        return (name, provider)
    }

    private func tell(_ applied: AppliedReceipt, provider: String, at now: Timestamp) {
        guard let phone = applied.phone else { return }
        var fields: [(String, JSONValue?)] = [
            ("phoneNumber", .string(PhoneNumber.mask(phone))),
            ("channel", applied.channel.map { .string($0.rawValue) }),
            ("provider", .string(provider)), ("messageId", .string(applied.receipt.messageId)),
        ]
        switch applied.effect {
        case .delivered:
            events.emit(.codeDelivered, at: now, fields)
        case let .fellBack(next):
            fields += Self.failure(applied) + [("fallback", .string(next.channel.rawValue))]
            events.emit(.deliveryFailed, at: now, fields)
        case .failed:
            fields += Self.failure(applied)
            events.emit(.deliveryFailed, at: now, fields)
        case .unknownMessage, .duplicate, .noChange:
            break
        }
    }

    /// What deliveryFailed says of a delivery a receipt said never arrived.
    private static func failure(_ applied: AppliedReceipt) -> [(String, JSONValue?)] {
        [
            ("reason", .string(DeliveryFailureReason.notDelivered.rawValue)),
            ("providerCode", applied.receipt.errorCode.map { .string($0) }), ("willRetry", .bool(false)),
        ]
    }
}
