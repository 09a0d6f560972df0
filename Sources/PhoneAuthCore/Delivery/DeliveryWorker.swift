import Glibc

/// The engine's delivery thread. Messages this engine queues are handed to it directly (their
/// outbox rows are leased to this engine when written); it also takes from the store's outbox
/// whatever falls due there: retries, and messages of engines that stopped before sending them.
/// Outcomes are recorded in one transaction per batch; failures are retried with doubling backoff.
final class DeliveryWorker: @unchecked Sendable {
    private let store: Store
    private let keys: KeyRing
    private let clock: Clock
    private let events: EventLog
    private let maxAttempts: Int
    private let backoffMs: Int64

    private let state = Lock()
    private var sender: SMSSender?
    private var queue: [OutboxMessage] = []
    private var idle = false
    private var wakeRequested = false
    private var stopping = false
    private var thread: pthread_t?
    /// Held while messages are being handed to the sender, so replacing the sender waits for it.
    private let sending = Lock()
    /// Outcomes not yet written to the store (worker thread only). They are written together a
    /// moment later, so one transaction records the deliveries of many flows.
    private var unrecorded: [DeliveryOutcome] = []

    /// How long an idle worker sleeps before looking for work that other processes queued.
    static let pollMilliseconds: Int64 = 500
    static let batchSize = 64
    /// How long a message stays reserved for the worker that took it.
    static let leaseMilliseconds: Int64 = 30_000
    /// Verifications are kept this long after they expire (for getVerificationStatus), then purged.
    static let retentionMilliseconds: Int64 = 24 * 3_600_000
    /// Ended sessions are kept this long (a replayed refresh token still reads "reused"), then purged.
    static let sessionRetentionMilliseconds: Int64 = 30 * 24 * 3_600_000
    static let purgeIntervalMilliseconds: Int64 = 10 * 60_000
    /// How long delivery outcomes may wait to be recorded with later ones.
    static let recordDelayMilliseconds: Int64 = 2

    init(store: Store, keys: KeyRing, clock: Clock, events: EventLog, maxAttempts: Int, backoffMs: Int64) {
        self.store = store
        self.keys = keys
        self.clock = clock
        self.events = events
        self.maxAttempts = maxAttempts
        self.backoffMs = backoffMs
    }

    func start() throws {
        let box = Unmanaged.passRetained(self)
        var handle = pthread_t()
        let rc = pthread_create(&handle, nil, { raw in
            let worker = Unmanaged<DeliveryWorker>.fromOpaque(raw!).takeRetainedValue()
            worker.run()
            return nil
        }, box.toOpaque())
        guard rc == 0 else {
            box.release()
            throw PhoneAuthError(.internalError, "The delivery thread could not be started (error \(rc)).")
        }
        thread = handle
    }

    /// Stops the thread, waiting for a message being delivered, and hands messages it still held
    /// back to the store so the next engine sends them at once.
    func stop() {
        state.withLock {
            stopping = true
            state.broadcast()
        }
        if let thread { pthread_join(thread, nil) }
        thread = nil
        recordOutcomes()
        let left = state.withLock { () -> [OutboxMessage] in
            defer { queue.removeAll() }
            return queue
        }
        try? store.releaseLeases(verificationIds: left.map(\.verificationId), now: clock.now())
    }

    func setSender(_ newSender: SMSSender?) {
        sending.withLock {
            state.withLock {
                sender = newSender
                wakeRequested = true
                state.broadcast()
            }
        }
    }

    /// Hands over a message whose outbox row this engine has just written.
    func enqueue(_ message: OutboxMessage) {
        state.withLock {
            queue.append(message)
            // Waking a thread costs a system call; only do it when the worker sleeps.
            if idle {
                wakeRequested = true
                state.broadcast()
            }
        }
    }

    private func backoff(_ attempts: Int) -> Int64 {
        min(backoffMs << Int64(min(attempts - 1, 20)), 3_600_000)
    }

    private func run() {
        var nextStoreCheck = clock.now()
        var nextPurge = clock.now()
        while true {
            // Take queued messages, or sleep until there are some or the store needs a look.
            var waitedToRecord = false
            let work: (batch: [OutboxMessage], canSend: Bool)? = state.withLock {
                while !stopping {
                    if sender != nil, !queue.isEmpty {
                        let batch = Array(queue.prefix(Self.batchSize))
                        queue.removeFirst(batch.count)
                        return (batch, true)
                    }
                    if !unrecorded.isEmpty {
                        if waitedToRecord { return ([], false) }
                        idle = true
                        state.wait(milliseconds: Self.recordDelayMilliseconds)
                        idle = false
                        waitedToRecord = true
                        continue
                    }
                    let wait = nextStoreCheck.milliseconds - clock.now().milliseconds
                    if wait <= 0 || wakeRequested && sender != nil && queue.isEmpty {
                        wakeRequested = false
                        return ([], sender != nil)
                    }
                    idle = true
                    state.wait(milliseconds: min(wait, Self.pollMilliseconds))
                    idle = false
                }
                return nil
            }
            guard let (queued, canSend) = work else { return }
            if !unrecorded.isEmpty && queued.isEmpty { recordOutcomes() }
            if canSend {
                if !queued.isEmpty {
                    deliver(queued)
                    continue
                }
                nextStoreCheck = deliverDueFromStore()
            } else {
                nextStoreCheck = clock.now().adding(milliseconds: Self.pollMilliseconds)
            }
            let now = clock.now()
            if now >= nextPurge {
                // This thread is the engine's only background one, so it also keeps the tables small.
                try? store.purge(verificationsExpiredBefore: now.adding(milliseconds: -Self.retentionMilliseconds),
                                 sessionsEndedBefore: now.adding(milliseconds: -Self.sessionRetentionMilliseconds))
                nextPurge = now.adding(milliseconds: Self.purgeIntervalMilliseconds)
            }
        }
    }

    /// Hands each message to the sender; the outcomes are recorded soon after. The sender is
    /// read again under `sending`, so one replaced meanwhile is never called; with none left, the
    /// messages wait in the queue.
    private func deliver(_ batch: [OutboxMessage]) {
        // Reported after `sending` is released: a sink may take its time, or even replace the sender.
        var delivered: [(message: OutboxMessage, sent: Bool)] = []
        defer {
            for (message, sent) in delivered {
                let attempt = message.attempts + 1
                events.emit(sent ? "codeSent" : "deliveryFailed", at: clock.now(), [
                    ("phoneNumber", .string(PhoneNumber.mask(message.phone))), ("languageCode", .string(message.languageCode)),
                    ("attempt", .int(Int64(attempt))), ("willRetry", sent ? nil : .bool(attempt < maxAttempts)),
                ])
            }
        }
        sending.withLock {
            guard let current = state.withLock({ sender }) else {
                state.withLock { queue.insert(contentsOf: batch, at: 0) }
                return
            }
            for (index, message) in batch.enumerated() {
                // Closing waits for this loop: stop between messages and leave the rest queued.
                if index > 0, state.withLock({ stopping }) {
                    state.withLock { queue.insert(contentsOf: batch[index...], at: 0) }
                    break
                }
                let sent = keys.openBody(message.sealedBody, verificationId: message.verificationId).map { body in
                    current.send(SMSMessage(to: message.phone, body: body, languageCode: message.languageCode, verificationId: message.verificationId))
                } ?? false
                unrecorded.append(sent ? .sent(verificationId: message.verificationId) : .failed(verificationId: message.verificationId))
                delivered.append((message, sent))
            }
        }
        if unrecorded.count >= Self.batchSize { recordOutcomes() }
    }

    /// Writes the outcomes in one transaction. If that fails the leases run out and the messages
    /// are sent again: delivery is at least once.
    private func recordOutcomes() {
        guard !unrecorded.isEmpty else { return }
        try? store.recordDeliveries(unrecorded, now: clock.now(), maxAttempts: maxAttempts, backoff: backoff)
        unrecorded.removeAll(keepingCapacity: true)
    }

    /// Delivers what is due in the store; returns when to look again.
    private func deliverDueFromStore() -> Timestamp {
        let poll = clock.now().adding(milliseconds: Self.pollMilliseconds)
        do {
            while true {
                let now = clock.now()
                let due = try store.nextDeliveryDue()
                guard let due, due <= now else { return min(poll, due ?? poll) }
                let batch = try store.claimDueMessages(now: now, limit: Self.batchSize, leaseMilliseconds: Self.leaseMilliseconds)
                if batch.isEmpty { return poll }
                deliver(batch)
                recordOutcomes()
                if state.withLock({ stopping || !queue.isEmpty }) { return now }
            }
        } catch {
            // The store is busy or unavailable: look again on the next poll.
            return poll
        }
    }
}
