import Glibc

/// The engine's delivery threads. Messages this engine queues are handed over directly (their
/// outbox rows are leased to this engine when written); the worker also takes from the store's
/// outbox whatever falls due there: retries, and messages of engines that stopped before sending
/// them. `concurrency` sender threads take messages from its queue, one at a time each; one more
/// thread does the bookkeeping (it never waits on a provider, so leases are renewed however long
/// a send takes). Outcomes are recorded together, a moment after they come, and their events are
/// told after that; failures are retried with doubling backoff plus jitter, or when the
/// provider's Retry-After says.
final class DeliveryWorker: @unchecked Sendable {
    private let store: Store
    private let keys: KeyRing
    private let clock: Clock
    private let events: EventLog
    private let maxAttempts: Int
    private let backoffMs: Int64
    let concurrency: Int
    /// How long a message stays reserved for this engine; renewed while it waits or is sent.
    let leaseMilliseconds: Int64
    /// Names this worker's leases in the store (random, so no two engines share it).
    let leaseOwner: String

    private let state = Lock()
    private var chain: ProviderChain?
    /// Bumped when the chain is replaced; calls in flight are counted by the generation they use.
    private var generation = 0
    private var callsInFlight: [Int: Int] = [:]
    private var queue: [OutboxMessage] = []
    /// Messages queued or being sent here, whose leases this engine keeps renewing.
    private var held: Set<String> = []
    private var sleepers = 0
    /// The sender threads sleep on a condition of their own: a queued message wakes one of them,
    /// and an outcome wakes only the bookkeeping thread, which sleeps on the lock's own condition.
    private let senderWake: Lock.Condition
    private var sleepingSenders = 0
    /// Threads in setChain waiting for the calls to the previous providers to end.
    private var chainWaiters = 0
    private var wakeRequested = false
    private var stopping = false
    private var threads: [pthread_t] = []
    /// Outcomes not yet written to the store, with the events that tell of them. They are written
    /// together a moment later, so one transaction records the deliveries of many flows; the
    /// events follow the write, so a host that reads the verification on `codeSent` finds it sent.
    private var unrecorded: [Finished] = []
    private typealias Finished = (outcome: DeliveryOutcome, event: Event?)
    private typealias Event = (name: String, time: Timestamp, fields: [(String, JSONValue?)])

    /// How long an idle worker sleeps before looking for work that other processes queued.
    static let pollMilliseconds: Int64 = 500
    static let batchSize = 64
    static let minimumLeaseMilliseconds: Int64 = 30_000
    /// How long delivery outcomes may wait to be recorded with later ones.
    static let recordDelayMilliseconds: Int64 = 2

    /// `attemptMilliseconds`: the longest one attempt can take (every provider's timeout); a lease
    /// outlasts it twice over.
    init(store: Store, keys: KeyRing, clock: Clock, events: EventLog, maxAttempts: Int, backoffMs: Int64,
         concurrency: Int, attemptMilliseconds: Int64) {
        self.store = store
        self.keys = keys
        self.clock = clock
        self.events = events
        self.maxAttempts = maxAttempts
        self.backoffMs = backoffMs
        self.concurrency = max(1, concurrency)
        senderWake = Lock.Condition(of: state)
        leaseMilliseconds = max(Self.minimumLeaseMilliseconds, 2 * attemptMilliseconds)
        leaseOwner = SortableID.make(at: clock.now(), randomBytes: 12)
    }

    func start() throws {
        try spawn { $0.coordinate() }
        for _ in 0..<concurrency {
            do { try spawn { $0.sendQueued() } } catch { stop(); throw error }
        }
    }

    private func spawn(_ body: @escaping (DeliveryWorker) -> Void) throws {
        threads.append(try BackgroundThread.start("delivery") { [self] in body(self) })
    }

    /// Stops the threads, waiting for the messages being sent, and hands messages still queued
    /// back to the store so the next engine sends them at once.
    func stop() {
        state.withLock {
            stopping = true
            state.broadcast()
            senderWake.broadcast()
        }
        for thread in threads { pthread_join(thread, nil) }
        threads.removeAll()
        if !recordOutcomes() {
            // The store refuses the last outcomes: a later engine will send those messages again,
            // but these were sent, and the sink is told so.
            tell(takeUnrecorded())
        }
        let left = state.withLock { () -> [OutboxMessage] in
            defer { queue.removeAll(); held.removeAll() }
            return queue
        }
        try? store.releaseLeases(verificationIds: left.map(\.verificationId), now: clock.now(), leaseOwner: leaseOwner)
    }

    /// A lease for a message this engine takes now.
    func newLease() -> DeliveryLease { DeliveryLease(owner: leaseOwner, until: clock.now().adding(milliseconds: leaseMilliseconds)) }

    /// Replaces the providers (nil: none, messages wait). Returns once no call to the previous
    /// ones is in flight, so they are never called again.
    func setChain(_ newChain: ProviderChain?) {
        state.withLock {
            chain = newChain
            generation += 1
            wakeRequested = true
            state.broadcast()
            senderWake.broadcast()
            let current = generation
            chainWaiters += 1
            while callsInFlight.contains(where: { $0.key < current && $0.value > 0 }) { sleep(1000) }
            chainWaiters -= 1
        }
    }

    /// Whether a setChain call is waiting for calls to the previous providers to end (a test
    /// holding those calls learns so that the replacement has begun).
    var isWaitingForCalls: Bool { state.withLock { chainWaiters > 0 } }

    /// Hands over a message whose outbox row this engine has just written.
    func enqueue(_ message: OutboxMessage) {
        state.withLock {
            queue.append(message)
            held.insert(message.verificationId)
            // Waking a thread costs a system call; only do it when one sleeps. Without a provider
            // the bookkeeping thread hands the queue back to the store: it is the one to wake.
            if chain == nil {
                if sleepers > 0 { state.broadcast() }
            } else if sleepingSenders > 0 {
                senderWake.signal()
            }
        }
    }

    // MARK: Threads

    private enum Chore {
        case record
        case renewLeases
        case lookAtStore(canSend: Bool)
        /// No provider (a callback not installed yet): the queue goes back to the store, so an
        /// engine that has one sends it, and this one takes it again once it has one.
        case releaseQueue
    }

    /// The bookkeeping thread: records outcomes, renews leases, takes due messages from the store.
    private func coordinate() {
        let now = clock.now()
        var nextStoreCheck = now
        var nextRenewal = now.adding(milliseconds: leaseMilliseconds / 3)
        var nextRecordAttempt = now
        while true {
            var waitedToRecord = false
            let chore: Chore? = state.withLock {
                while !stopping {
                    // Renewals and looks at the store come first: a steady stream of outcomes to
                    // record must not starve them.
                    let now = clock.now()
                    if chain == nil, !queue.isEmpty { return .releaseQueue }
                    if held.isEmpty { nextRenewal = now.adding(milliseconds: leaseMilliseconds / 3) }
                    if now >= nextRenewal { return .renewLeases }
                    let wait = nextStoreCheck.milliseconds - now.milliseconds
                    if wait <= 0 || wakeRequested && chain != nil && queue.isEmpty {
                        wakeRequested = false
                        return .lookAtStore(canSend: chain != nil)
                    }
                    if !unrecorded.isEmpty, now >= nextRecordAttempt {
                        if waitedToRecord { return .record }
                        sleep(Self.recordDelayMilliseconds)
                        waitedToRecord = true
                        continue
                    }
                    let untilRecord = unrecorded.isEmpty ? Self.pollMilliseconds : nextRecordAttempt.milliseconds - now.milliseconds
                    sleep(max(1, min(wait, untilRecord, Self.pollMilliseconds, nextRenewal.milliseconds - now.milliseconds)))
                }
                return nil
            }
            switch chore {
            case nil: return
            case .record:
                // The store is busy or unreachable: keep the outcomes, and try again a little later.
                if !recordOutcomes() { nextRecordAttempt = clock.now().adding(milliseconds: Self.pollMilliseconds) }
            case .releaseQueue:
                let released = state.withLock { () -> [OutboxMessage] in
                    guard chain == nil else { return [] }
                    defer { held.subtract(queue.map(\.verificationId)); queue.removeAll() }
                    return queue
                }
                try? store.releaseLeases(verificationIds: released.map(\.verificationId), now: clock.now(), leaseOwner: leaseOwner)
            case .renewLeases:
                renewLeases()
                nextRenewal = clock.now().adding(milliseconds: leaseMilliseconds / 3)
            case let .lookAtStore(canSend):
                recordOutcomes()
                nextStoreCheck = canSend ? takeDueFromStore() : clock.now().adding(milliseconds: Self.pollMilliseconds)
            }
        }
    }

    /// A sender thread: one queued message after another; closing stops it between two.
    private func sendQueued() {
        while true {
            let job: (OutboxMessage, ProviderChain, Int)? = state.withLock {
                while !stopping {
                    if let chain, !queue.isEmpty {
                        callsInFlight[generation, default: 0] += 1
                        return (queue.removeFirst(), chain, generation)
                    }
                    sleepingSenders += 1
                    senderWake.wait(milliseconds: Self.pollMilliseconds)
                    sleepingSenders -= 1
                }
                return nil
            }
            guard let (message, chain, used) = job else { return }
            let report = attempt(message, via: chain)
            finish(message, report, generation: used)
        }
    }

    /// Sleeps on the state's condition (the lock held) until woken or `milliseconds` pass.
    private func sleep(_ milliseconds: Int64) {
        sleepers += 1
        state.wait(milliseconds: milliseconds)
        sleepers -= 1
    }

    private func attempt(_ message: OutboxMessage, via chain: ProviderChain) -> DeliveryReport {
        // A code that can no longer be used is not worth an SMS (it may have waited in the queue).
        if clock.now() >= message.expiresAt { return DeliveryReport(outcome: .undeliverable(DeliveryProblem("expired"))) }
        guard let body = keys.openBody(message.sealedBody, verificationId: message.verificationId) else {
            return DeliveryReport(outcome: .failed(DeliveryProblem("unreadable")))
        }
        let sms = SMSMessage(to: message.phone, body: body, languageCode: message.languageCode,
                             verificationId: message.verificationId, purpose: message.purpose)
        var report = chain.deliver(sms)
        report.cost = sms.cost
        return report
    }

    /// Notes the outcome, and the event that tells of it, for the bookkeeping thread to record.
    private func finish(_ message: OutboxMessage, _ report: DeliveryReport, generation used: Int) {
        let now = clock.now()
        let id = message.verificationId
        let attempt = message.attempts + 1
        var fields: [(String, JSONValue?)] = [
            ("phoneNumber", .string(PhoneNumber.mask(message.phone))), ("languageCode", .string(message.languageCode)),
            ("attempt", .int(Int64(attempt))), ("provider", report.provider.map { .string($0) }),
            ("encoding", report.cost.map { .string($0.encoding.rawValue) }), ("segments", report.cost.map { .int(Int64($0.segments)) }),
        ]
        if !report.failedOver.isEmpty { fields.append(("failedOver", .array(report.failedOver.map { .string($0) }))) }
        let outcome: DeliveryOutcome
        let event: Event?
        switch report.outcome {
        case let .sent(messageId):
            outcome = .sent(verificationId: id, provider: report.provider, messageId: messageId)
            event = ("codeSent", now, fields + [("messageId", messageId.map { .string($0) })])
        case let .failed(problem):
            let retryAt = retryTime(attempt, problem, now)
            outcome = .failed(verificationId: id, provider: report.provider, reason: problem.reason, retryAt: retryAt)
            event = ("deliveryFailed", now, fields + Self.fields(of: problem) + [("willRetry", .bool(attempt < maxAttempts))])
        case let .undeliverable(problem):
            outcome = .undeliverable(verificationId: id, provider: report.provider, reason: problem.reason)
            event = ("deliveryFailed", now, fields + Self.fields(of: problem) + [("willRetry", .bool(false))])
        case let .noProvider(until):
            outcome = .deferred(verificationId: id, until: until)
            event = nil  // providerSkipped said so; the message waits without losing an attempt
        }
        state.withLock {
            callsInFlight[used, default: 1] -= 1
            if callsInFlight[used] == 0 { callsInFlight[used] = nil }
            // Still held (its lease renewed) until the outcome is in the store.
            unrecorded.append((outcome, event))
            // The bookkeeping thread is woken by a batch's first outcome only: it then waits a
            // moment for more, and waking it for each would make it record them one by one.
            if sleepers > 0 && (unrecorded.count == 1 || chainWaiters > 0) { state.broadcast() }
        }
    }

    private static func fields(of problem: DeliveryProblem) -> [(String, JSONValue?)] {
        [("reason", .string(problem.reason)), ("providerCode", problem.providerCode.map { .string($0) }),
         ("httpStatus", problem.httpStatus.map { .int(Int64($0)) }), ("detail", problem.detail.map { .string($0) }),
         ("retryAfterSeconds", problem.retryAfterMs.map { .int(($0 + 999) / 1000) })]
    }

    /// When a failed attempt is tried again: the doubling backoff plus up to half of it again at
    /// random (so messages failed together do not come back together), and never before the
    /// provider's Retry-After.
    private func retryTime(_ attempt: Int, _ problem: DeliveryProblem, _ now: Timestamp) -> Timestamp {
        let backoff = min(backoffMs << Int64(min(attempt - 1, 20)), 3_600_000)
        let jitter = Int64.random(in: 0...max(0, backoff / 2))
        return now.adding(milliseconds: max(backoff + jitter, problem.retryAfterMs ?? 0))
    }

    /// Writes the outcomes in one transaction, then tells the event sink of them; false if the
    /// write failed (they are kept for another try, their messages still held, so this engine does
    /// not send them again meanwhile). The sink is called on this thread (or the closing one),
    /// outside the lock, so it may replace the providers; while it runs, leases are not renewed
    /// (the sink must be quick).
    @discardableResult
    private func recordOutcomes() -> Bool {
        let finished = takeUnrecorded()
        guard !finished.isEmpty else { return true }
        let outcomes = finished.map(\.outcome)
        do {
            try store.recordDeliveries(outcomes, now: clock.now(), maxAttempts: maxAttempts, leaseOwner: leaseOwner)
        } catch {
            state.withLock { unrecorded.insert(contentsOf: finished, at: 0) }
            return false
        }
        state.withLock { held.subtract(outcomes.map(\.verificationId)) }
        tell(finished)
        return true
    }

    private func takeUnrecorded() -> [Finished] {
        state.withLock {
            defer { unrecorded.removeAll(keepingCapacity: true) }
            return unrecorded
        }
    }

    private func tell(_ finished: [Finished]) {
        for case let (_, event?) in finished { events.emit(event.name, at: event.time, event.fields) }
    }

    private func renewLeases() {
        let ids = state.withLock { Array(held) }
        try? store.renewLeases(verificationIds: ids, lease: newLease())
    }

    /// Takes what is due in the store into the queue, as much as keeps the sender threads busy.
    /// Returns when to look again.
    private func takeDueFromStore() -> Timestamp {
        let poll = clock.now().adding(milliseconds: Self.pollMilliseconds)
        do {
            while true {
                let now = clock.now()
                let room = state.withLock { () -> Int in
                    let room = min(Self.batchSize, 4 * concurrency) - queue.count
                    // The queue is full enough: look again as soon as it is empty.
                    if room <= 0 { wakeRequested = true }
                    return room
                }
                if room <= 0 { return poll }
                let due = try store.nextDeliveryDue()
                guard let due, due <= now else { return min(poll, due ?? poll) }
                let claimed = try store.claimDueMessages(now: now, limit: room, lease: newLease())
                if claimed.isEmpty { return poll }
                let stop = state.withLock { () -> Bool in
                    let fresh = claimed.filter { !held.contains($0.verificationId) }
                    held.formUnion(fresh.map(\.verificationId))
                    queue.append(contentsOf: fresh)
                    if sleepingSenders > 0 { senderWake.broadcast() }
                    return stopping
                }
                if stop { return now }
            }
        } catch {
            // The store is busy or unavailable: look again on the next poll.
            return poll
        }
    }
}
