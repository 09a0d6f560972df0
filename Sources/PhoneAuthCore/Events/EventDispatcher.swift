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
    /// A claim holds its events for twice what one delivery may take (the webhook's timeout, or
    /// handlerMilliseconds) plus this; an event is begun only while the rest of the lease covers
    /// it, and the others go back. (An engine that dies leaves its events for this long.)
    static let leaseMarginMilliseconds: Int64 = 5000
    /// What one call of an in-process handler is assumed to take at most.
    static let handlerMilliseconds: Int64 = 5000
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

    /// Stops the thread once the event being delivered is done; the rest of its batch is given
    /// back, due at once for the next engine.
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

    private enum Receiver {
        case handler(any EventHandler)
        case webhook(WebhookProvider)
    }

    /// The receiver now; nil once stopping. `none` when there is nobody to deliver to.
    private func next(afterWaiting waitMs: Int64) -> Receiver?? {
        lock.withLock {
            if !woken && !stopping && waitMs > 0 { lock.wait(milliseconds: waitMs) }
            woken = false
            if stopping { return nil }
            if let handler { return .some(.handler(handler)) }
            return .some(settings.webhook.map { .webhook($0) })
        }
    }

    private func run() {
        var waitMs: Int64 = 0
        while let receiver = next(afterWaiting: waitMs) {
            waitMs = receiver.map(deliverDue) ?? Self.pollMilliseconds
        }
    }

    /// Delivers what is due, recording each outcome as it comes; returns how long to wait before
    /// looking again.
    private func deliverDue(to receiver: Receiver) -> Int64 {
        let perEvent: Int64 =
            if case let .webhook(hook) = receiver { Int64(hook.endpoint.timeoutMs) } else { Self.handlerMilliseconds }
        let lease = DeliveryLease(
            owner: leaseOwner, until: clock.now().adding(milliseconds: 2 * perEvent + Self.leaseMarginMilliseconds))
        guard let due = try? store.claimDueEvents(now: clock.now(), limit: Self.batchSize, lease: lease) else {
            return Self.pollMilliseconds
        }
        for (index, event) in due.enumerated() {
            let now = clock.now()
            if lock.withLock({ stopping }) || now.milliseconds + perEvent > lease.until.milliseconds {
                try? store.releaseEvents(ids: due[index...].map(\.id), now: now, leaseOwner: leaseOwner)
                break
            }
            var failure: (retryAt: Timestamp, error: String)?
            if let error = deliver(event, to: receiver) {
                let retryAt = clock.now().adding(milliseconds: settings.backoffMs(attempt: event.attempts + 1))
                failure = (retryAt, error)
                log.emit(
                    .eventDeliveryFailed, at: clock.now(),
                    [
                        ("eventId", .string(event.id)), ("type", .string(event.type)),
                        ("attempt", .int(Int64(event.attempts + 1))), ("retryAt", .string(retryAt.rfc3339)),
                        ("error", .string(error)),
                    ])
            }
            // A failure to record leaves the event leased: delivered again once the lease runs out.
            try? store.recordEventDelivery(event, failure: failure, leaseOwner: leaseOwner)
        }
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
        }
    }
}
