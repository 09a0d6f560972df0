import Glibc

/// The engine's delivery thread: takes due messages from the store's outbox, hands them to the
/// SMS sender and records the outcome, retrying failures with doubling backoff.
final class DeliveryWorker: @unchecked Sendable {
    private let store: Store
    private let keys: KeyRing
    private let clock: Clock
    private let maxAttempts: Int
    private let backoffMs: Int64

    private let state = Lock()
    private var sender: SMSSender?
    private var wakeRequested = false
    private var stopping = false
    private var thread: pthread_t?
    /// Held while a message is being handed to the sender, so replacing the sender waits for it.
    private let sending = Lock()

    /// How long an idle worker sleeps before looking for work other processes queued.
    static let pollMilliseconds: Int64 = 500
    static let batchSize = 64
    static let leaseMilliseconds: Int64 = 60_000
    /// Verifications are kept this long after they expire (for getVerificationStatus), then purged.
    static let retentionMilliseconds: Int64 = 24 * 3_600_000
    static let purgeIntervalMilliseconds: Int64 = 10 * 60_000

    init(store: Store, keys: KeyRing, clock: Clock, maxAttempts: Int, backoffMs: Int64) {
        self.store = store
        self.keys = keys
        self.clock = clock
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

    /// Stops the thread, waiting for a message being delivered.
    func stop() {
        state.withLock {
            stopping = true
            state.broadcast()
        }
        if let thread { pthread_join(thread, nil) }
        thread = nil
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

    /// Tells the worker a message was queued.
    func wake() {
        state.withLock {
            wakeRequested = true
            state.broadcast()
        }
    }

    private func backoff(_ attempts: Int) -> Int64 {
        min(backoffMs << Int64(min(attempts - 1, 20)), 3_600_000)
    }

    private func run() {
        var nextDue: Timestamp? = nil
        var nextPurge = clock.now()
        while true {
            let proceed: Bool = state.withLock {
                if stopping { return false }
                if !wakeRequested {
                    var wait = Self.pollMilliseconds
                    if let nextDue { wait = max(1, min(wait, nextDue.milliseconds - clock.now().milliseconds)) }
                    state.wait(milliseconds: wait)
                }
                wakeRequested = false
                return !stopping
            }
            guard proceed else { return }
            nextDue = deliverDue()
            let now = clock.now()
            if now >= nextPurge {
                try? store.purgeVerifications(expiredBefore: now.adding(milliseconds: -Self.retentionMilliseconds))
                nextPurge = now.adding(milliseconds: Self.purgeIntervalMilliseconds)
            }
        }
    }

    /// Delivers every due message; returns when the next one falls due, if known.
    private func deliverDue() -> Timestamp? {
        while true {
            let canSend = state.withLock { sender != nil && !stopping }
            guard canSend else { return nil }
            do {
                let now = clock.now()
                if let due = try store.nextDeliveryDue(), due > now { return due }
                let batch = try store.claimDueMessages(now: now, limit: Self.batchSize, leaseMilliseconds: Self.leaseMilliseconds)
                if batch.isEmpty { return try store.nextDeliveryDue() }
                var outcomes: [DeliveryOutcome] = []
                outcomes.reserveCapacity(batch.count)
                sending.withLock {
                    let current = state.withLock { sender }
                    for message in batch {
                        guard let body = keys.openBody(message.sealedBody, verificationId: message.verificationId), let current else {
                            outcomes.append(.failed(id: message.id))
                            continue
                        }
                        let sms = SMSMessage(to: message.phone, body: body, languageCode: message.languageCode, verificationId: message.verificationId)
                        outcomes.append(current.send(sms) ? .sent(id: message.id) : .failed(id: message.id))
                    }
                }
                try store.recordDeliveries(outcomes, now: clock.now(), maxAttempts: maxAttempts, backoff: backoff)
                if batch.count < Self.batchSize { return try store.nextDeliveryDue() }
            } catch {
                // The store is unavailable (busy, disk full): try again on the next poll.
                return nil
            }
        }
    }
}
