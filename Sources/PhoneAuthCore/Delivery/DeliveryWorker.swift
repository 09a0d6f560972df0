import Glibc

/// The engine's delivery threads. Messages this engine queues are handed over directly (their
/// outbox rows are leased to this engine when written); the worker also takes from the store's
/// outbox whatever falls due there: retries, and messages of engines that stopped before sending
/// them. `concurrency` sender threads take messages from its queue, one at a time each; one more
/// thread does the bookkeeping (it never waits on a provider, so leases are renewed however long
/// a send takes). What to do next is decided by `DeliveryStateMachine`, under the lock; this
/// class only feeds it what happened and does what it says with the store, the providers and
/// the event sink.
final class DeliveryWorker: @unchecked Sendable {  // its machine, chain and threads are only touched under `state`
    private let store: Store
    private let keys: KeyRing
    private let clock: Clock
    private let events: EventLog
    private let texts: MessageTexts
    private let fallback: FallbackPolicy
    /// Names this worker's leases in the store (random, so no two engines share it).
    let leaseOwner: String

    /// The machine's settings, copied so they are read without the lock.
    private let settings: DeliveryStateMachine.Settings
    private let state = Lock()
    private var machine: DeliveryStateMachine
    private var chain: ProviderChain?
    private var sleepers = 0
    /// The sender threads sleep on a condition of their own: a queued message wakes one of them,
    /// and an outcome wakes only the bookkeeping thread, which sleeps on the lock's own condition.
    private let senderWake: Lock.Condition
    private var sleepingSenders = 0
    /// Threads in setChain waiting for the calls to the previous providers to end.
    private var chainWaiters = 0
    private var threads: [pthread_t] = []

    static let minimumLeaseMilliseconds: Int64 = 30_000

    var concurrency: Int { settings.concurrency }

    /// `attemptMilliseconds`: the longest one attempt can take (every provider's timeout); a lease
    /// outlasts it twice over.
    init(
        store: Store, keys: KeyRing, clock: Clock, events: EventLog, texts: MessageTexts, fallback: FallbackPolicy,
        maxAttempts: Int, backoffMs: Int64, concurrency: Int, attemptMilliseconds: Int64
    ) {
        self.store = store
        self.keys = keys
        self.clock = clock
        self.events = events
        self.texts = texts
        self.fallback = fallback
        settings = DeliveryStateMachine.Settings(
            maxAttempts: maxAttempts, backoffMilliseconds: backoffMs,
            leaseMilliseconds: max(Self.minimumLeaseMilliseconds, 2 * attemptMilliseconds),
            concurrency: max(1, concurrency))
        machine = DeliveryStateMachine(settings: settings, now: clock.now())
        senderWake = Lock.Condition(of: state)
        leaseOwner = SortableID.make(at: clock.now(), randomBytes: 12)
    }

    func start() throws {
        do {
            threads.append(try BackgroundThread.start("delivery") { [self] in coordinate() })
            for _ in 0..<concurrency {
                threads.append(try BackgroundThread.start("delivery") { [self] in sendQueued() })
            }
        } catch {
            stop()
            throw error
        }
    }

    /// Stops the threads, waiting for the messages being sent, and hands messages still queued
    /// back to the store so the next engine sends them at once.
    func stop() {
        state.withLock {
            machine.stopRequested()
            state.broadcast()
            senderWake.broadcast()
        }
        for thread in threads { pthread_join(thread, nil) }
        threads.removeAll()
        let last = state.withLock { machine.takeOutcomes() }
        // The store may refuse the last outcomes: a later engine will send those messages again,
        // but these were sent, and the sink is told so.
        if !write(last) { tell(last) }
        let left = state.withLock { machine.drain().map(\.verificationId) + machine.unsure.keys }
        _ = try? store.releaseLeases(verificationIds: left, now: clock.now(), leaseOwner: leaseOwner)
    }

    /// A lease for a message this engine takes now.
    func newLease() -> DeliveryLease {
        DeliveryLease(owner: leaseOwner, until: clock.now().adding(milliseconds: settings.leaseMilliseconds))
    }

    /// Replaces the providers (nil: none, messages wait). Returns once no call to the previous
    /// ones is in flight, so they are never called again.
    func setChain(_ newChain: ProviderChain?) {
        state.withLock {
            chain = newChain
            let current = machine.chainReplaced(hasProvider: newChain != nil)
            state.broadcast()
            senderWake.broadcast()
            chainWaiters += 1
            while machine.hasCallsInFlight(before: current) { sleep(1000) }
            chainWaiters -= 1
        }
    }

    /// Something this engine did made a message due in the store (a receipt's fallback): look now.
    func lookNow() {
        state.withLock {
            machine.fallbackDue(now: clock.now())
            if sleepers > 0 { state.broadcast() }
        }
    }

    /// Whether the providers carry `channel` (no provider yet: the host's sender, when installed,
    /// carries every channel).
    func carries(_ channel: Channel) -> Bool {
        state.withLock { chain?.carries(channel) ?? true }
    }

    /// Whether a setChain call is waiting for calls to the previous providers to end (a test
    /// holding those calls learns so that the replacement has begun).
    var isWaitingForCalls: Bool { state.withLock { chainWaiters > 0 } }

    /// Hands over a message whose outbox row this engine has just written.
    func enqueue(_ message: OutboxMessage) {
        state.withLock {
            // Waking a thread costs a system call; only do it when one sleeps.
            switch machine.enqueued(message) {
            case .bookkeeper: if sleepers > 0 { state.broadcast() }
            case .sender: if sleepingSenders > 0 { senderWake.signal() }
            }
        }
    }

    /// A call that wrote (or tried to write) the outbox row of `verificationId` with `lease` failed
    /// without knowing whether the write committed: if it did, the message is released to be sent
    /// at once, rather than when the lease runs out.
    func commitUnknown(verificationId: String, lease: DeliveryLease) {
        state.withLock {
            machine.commitUnknown(verificationId, leaseUntil: lease.until)
            if sleepers > 0 { state.broadcast() }
        }
    }

    // MARK: Threads

    /// The bookkeeping thread: records outcomes, renews leases, takes due messages from the store.
    private func coordinate() {
        while true {
            let chore = state.withLock { () -> DeliveryStateMachine.Chore in
                while true {
                    let chore = machine.nextChore(now: clock.now())
                    guard case let .sleep(milliseconds) = chore else { return chore }
                    sleep(milliseconds)
                }
            }
            switch chore {
            case .stop, .sleep: return
            case let .handBack(messages):
                _ = try? store.releaseLeases(
                    verificationIds: messages.map(\.verificationId), now: clock.now(),
                    leaseOwner: leaseOwner)
            case let .release(ids):
                let now = clock.now()
                let found = try? store.releaseLeases(verificationIds: ids, now: now, leaseOwner: leaseOwner)
                state.withLock { machine.released(found ?? [], now: now) }
            case let .renewLeases(ids, until):
                try? store.renewLeases(verificationIds: ids, lease: DeliveryLease(owner: leaseOwner, until: until))
            case let .record(batch):
                if !write(batch) { state.withLock { machine.recordFailed(batch, now: clock.now()) } }
            case let .lookAtStore(batch, canSend):
                if !write(batch) { state.withLock { machine.putBack(batch) } }
                takeDueFromStore(canSend: canSend)
            }
        }
    }

    /// A sender thread: one queued message after another; closing stops it between two.
    private func sendQueued() {
        while true {
            let step = state.withLock { () -> (DeliveryStateMachine.SenderStep, ProviderChain?) in
                while true {
                    let step = machine.nextSend(now: clock.now())
                    guard case .wait = step else { return (step, chain) }
                    sleepingSenders += 1
                    senderWake.wait(milliseconds: DeliveryStateMachine.pollMilliseconds)
                    sleepingSenders -= 1
                }
            }
            switch step {
            case (.stop, _), (.wait, _): return
            case let (.send(message, used), chain?):
                finish(message, attempt(message, via: chain), generation: used)
            case let (.send(message, used), nil):
                // Cannot happen (the machine sends only while there are providers); the message
                // waits for them without losing an attempt.
                finish(message, DeliveryReport(outcome: .noProvider(until: clock.now())), generation: used)
            case let (.giveUp(message, reason), _):
                finish(message, DeliveryReport(outcome: .undeliverable(DeliveryProblem(reason))), generation: nil)
            }
        }
    }

    /// Sleeps on the state's condition (the lock held) until woken or `milliseconds` pass.
    private func sleep(_ milliseconds: Int64) {
        sleepers += 1
        state.wait(milliseconds: milliseconds)
        sleepers -= 1
    }

    private func attempt(_ message: OutboxMessage, via chain: ProviderChain) -> DeliveryReport {
        guard let sealed = keys.openBody(message.sealedCode, verificationId: message.verificationId) else {
            return DeliveryReport(outcome: .failed(DeliveryProblem(.unreadable)))
        }
        let isCode = MessageTexts.isBareCode(sealed)
        guard let (body, language) = isCode ? texts.body(of: message, code: sealed) : (sealed, message.languageCode)
        else {
            return DeliveryReport(outcome: .undeliverable(DeliveryProblem(.verificationEnded)))
        }
        let sms = SMSMessage(
            to: message.phone, channel: message.channel, body: body, code: isCode ? sealed : "",
            languageCode: language, verificationId: message.verificationId, delivery: message.seq,
            purpose: message.purpose.rawValue)
        var report = chain.deliver(sms)
        report.language = language
        if message.channel == .sms { report.cost = sms.cost }
        return report
    }

    /// Hands the attempt's report to the machine, which decides what becomes of the message and
    /// keeps the outcome for the bookkeeping thread to record.
    private func finish(_ message: OutboxMessage, _ report: DeliveryReport, generation used: Int?) {
        let now = clock.now()
        let random = UInt64.random(in: .min ... .max)
        state.withLock {
            machine.sendFinished(message, report, generation: used, now: now, random: random)
            // The bookkeeping thread is woken by a batch's first outcome only: it then waits a
            // moment for more, and waking it for each would make it record them one by one.
            if sleepers > 0 && (machine.unrecorded.count == 1 || chainWaiters > 0) { state.broadcast() }
        }
    }

    /// Writes the outcomes in one transaction, then tells the event sink of them; false if the
    /// write failed (the caller keeps them). The sink is called on this thread (or the closing
    /// one), outside the lock, so it may replace the providers; while it runs, leases are not
    /// renewed (the sink must be quick).
    private func write(_ batch: [DeliveryStateMachine.Finished]) -> Bool {
        guard !batch.isEmpty else { return true }
        let fallbacks: [OutboxMessage]
        do {
            fallbacks = try store.recordDeliveries(
                batch.map { ($0.outcome, $0.message) }, now: clock.now(), maxAttempts: settings.maxAttempts,
                leaseOwner: leaseOwner, fallback: fallback)
        } catch {
            return false
        }
        let fellBack = Dictionary(fallbacks.map { ($0.verificationId, $0.channel) }) { $1 }
        state.withLock {
            machine.recorded(batch)
            if !fellBack.isEmpty {
                machine.fallbackDue(now: clock.now())
                state.broadcast()
            }
        }
        tell(batch, fellBack: fellBack)
        return true
    }

    /// Tells the sink of each attempt; a failure that fell back says by which channel the code goes next.
    /// An attempt no provider could take (all skipped: providerSkipped told of it) is told only
    /// when it made the code go by another channel.
    private func tell(_ batch: [DeliveryStateMachine.Finished], fellBack: [String: Channel] = [:]) {
        guard events.hasSink else { return }
        for finished in batch {
            let next = fellBack[finished.message.verificationId]
            let skipped = DeliveryReport(outcome: .undeliverable(DeliveryProblem(.providersSkipped)))
            guard
                var event = finished.event
                    ?? next.flatMap({ _ in
                        DeliveryEvent(
                            message: finished.message, report: skipped, attempt: finished.message.attempts + 1,
                            willRetry: false, at: clock.now())
                    })
            else { continue }
            if let next { event.fields.append(("fallback", .string(next.rawValue))) }
            events.emit(event.name, at: event.time, event.fields)
        }
    }

    /// Tells of each sent message no receipt confirmed in time, and the channel its code goes by now.
    private func tell(_ unconfirmed: [UnconfirmedDelivery], at now: Timestamp) {
        for delivery in unconfirmed {
            events.emit(
                .deliveryFailed, at: now,
                [
                    ("phoneNumber", .string(PhoneNumber.mask(delivery.message.phone))),
                    ("channel", .string(delivery.message.channel.rawValue)),
                    ("provider", delivery.provider.map { .string($0) }),
                    ("messageId", delivery.messageId.map { .string($0) }),
                    ("reason", .string(DeliveryFailureReason.noReceipt.rawValue)), ("willRetry", .bool(false)),
                    ("fallback", delivery.fallback.map { .string($0.rawValue) }),
                ])
        }
    }

    /// Takes what is due in the store into the queue, as much as keeps the sender threads busy.
    private func takeDueFromStore(canSend: Bool) {
        var step = state.withLock { machine.beginPoll(now: clock.now(), canSend: canSend) }
        do {
            while true {
                switch step {
                case .done:
                    return
                case .askWhenDue:
                    let now = clock.now()
                    let due = try store.nextDeliveryDue()
                    step = state.withLock { machine.nextDue(due, now: now) }
                case let .claim(limit, now, until):
                    let (claimed, unconfirmed) = try store.claimDueMessages(
                        now: now, limit: limit, lease: DeliveryLease(owner: leaseOwner, until: until),
                        fallback: fallback)
                    tell(unconfirmed, at: now)
                    step = state.withLock {
                        if !claimed.isEmpty && sleepingSenders > 0 { senderWake.broadcast() }
                        return machine.claimed(claimed, now: now)
                    }
                }
            }
        } catch {
            state.withLock { machine.pollFailed() }
        }
    }
}
