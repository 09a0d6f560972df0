import Glibc

/// Delivers the recorded events, on a thread of its own: to the host's in-process handler if it
/// set one, else to the `events` webhook; with neither, they wait in the store. Events are
/// leased while delivered (so engines sharing a database deliver each once), deleted once taken,
/// and offered again after a failure with a backoff that doubles up to `events.maxRetryMs`.
/// Only the first undelivered event of a user is ever due, so a user's events arrive in order.
final class EventDispatcher: @unchecked Sendable {  // `handler`, `stopping`, `woken` only under `lock`
    private let store: EventStore
    private let settings: EventSettings
    private let clock: Clock
    private let log: EventLog
    private let lock = Lock()
    private var handler: (any EventHandler)?
    private var stopping = false
    private var woken = false
    private var thread: pthread_t?
    private let client = HTTPClient()
    /// Names this engine's leases (random, so no two engines share it).
    private let leaseOwner: String

    /// Events taken from the store at once.
    static let batchSize = 32
    /// A lease outlasts the webhook's timeout twice over, plus this.
    static let leaseMarginMs: Int64 = 5000
    /// How often the store is looked at without a bell (events another engine wrote, retries).
    static let pollMilliseconds: Int64 = 1000

    init(store: EventStore, settings: EventSettings, clock: Clock, log: EventLog) {
        self.store = store
        self.settings = settings
        self.clock = clock
        self.log = log
        leaseOwner = SortableID.make(at: clock.now(), randomBytes: 12)
    }

    func start() throws {
        store.onEventsRecorded { [weak self] in self?.wake() }
        thread = try BackgroundThread.start("events") { [self] in run() }
    }

    /// Stops the thread after the event being delivered; leased ones fall due again when their
    /// lease runs out.
    func stop() {
        lock.withLock {
            stopping = true
            lock.broadcast()
        }
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    /// Installs (nil: removes) the host's handler; it replaces the webhook.
    func setHandler(_ newHandler: (any EventHandler)?) {
        lock.withLock {
            handler = newHandler
            woken = true
            lock.broadcast()
        }
    }

    func wake() {
        lock.withLock {
            woken = true
            lock.broadcast()
        }
    }

    private func run() {
        var waitMs: Int64 = 0
        while true {
            let receiver: Receiver? = lock.withLock {
                if !woken && !stopping && waitMs > 0 { lock.wait(milliseconds: waitMs) }
                woken = false
                if stopping { return nil }
                if let handler { return .handler(handler) }
                return settings.webhook.map { .webhook($0) } ?? .nobody
            }
            guard let receiver else { return }
            waitMs = deliverDue(to: receiver)
        }
    }

    private enum Receiver {
        case handler(any EventHandler)
        case webhook(WebhookProvider)
        case nobody
    }

    /// Delivers what is due; returns how long to wait before looking again.
    private func deliverDue(to receiver: Receiver) -> Int64 {
        if case .nobody = receiver { return Self.pollMilliseconds }
        let now = clock.now()
        let timeoutMs: Int64 = if case let .webhook(hook) = receiver { Int64(hook.endpoint.timeoutMs) } else { 0 }
        let lease = DeliveryLease(
            owner: leaseOwner, until: now.adding(milliseconds: 2 * timeoutMs + Self.leaseMarginMs))
        guard let due = try? store.claimDueEvents(now: now, limit: Self.batchSize, lease: lease) else {
            return Self.pollMilliseconds
        }
        var delivered: [String] = [], released: [String] = []
        var failed: [(id: String, retryAt: Timestamp, error: String)] = []
        for event in due {
            // Closing waits for the event being delivered, not for the rest of the batch.
            if lock.withLock({ stopping }) {
                released.append(event.id)
                continue
            }
            if let error = deliver(event, to: receiver) {
                let retry = clock.now().adding(milliseconds: settings.backoffMs(attempt: event.attempts + 1))
                failed.append((event.id, retry, error))
                log.emit(
                    .eventDeliveryFailed, at: clock.now(),
                    [
                        ("eventId", .string(event.id)), ("type", .string(event.type)),
                        ("attempt", .int(Int64(event.attempts + 1))), ("retryAt", .string(retry.rfc3339)),
                        ("error", .string(error)),
                    ])
            } else {
                delivered.append(event.id)
            }
        }
        // A failure to record leaves the events leased: delivered again once the lease runs out.
        try? store.recordEventDeliveries(
            delivered: delivered, failed: failed, released: released, now: clock.now(), leaseOwner: leaseOwner)
        if due.count == Self.batchSize { return 0 }
        guard let next = try? store.nextEventDue() else { return Self.pollMilliseconds }
        return max(0, min(Self.pollMilliseconds, next.milliseconds - clock.now().milliseconds))
    }

    /// nil when the receiver took the event; else why not.
    private func deliver(_ event: PendingEvent, to receiver: Receiver) -> String? {
        switch receiver {
        case let .handler(handler):
            return handler.deliver(event.payload) ? nil : "the handler did not take it"
        case let .webhook(hook):
            switch client.post(hook.signedPost(body: Array(event.payload.utf8), id: event.id, now: clock.now())) {
            case let .answered(status, _, _) where (200..<300).contains(status): return nil
            case let .answered(status, _, _): return "HTTP \(status)"
            case let .failed(_, description): return description
            }
        case .nobody:
            return "no receiver"
        }
    }
}
