/// What the delivery worker does next. A plain value: `DeliveryWorker` feeds it what happened
/// (a message queued or claimed, a send finished, outcomes written or refused, providers
/// replaced, stop) with the time read from the engine's clock, and performs what it answers
/// (send, give up, record, renew leases, look at the store, hand messages back, sleep). It owns
/// every decision the worker makes, so tests drive it without threads, a store or a clock.
struct DeliveryStateMachine {
    struct Settings {
        /// Attempts a message gets; a failure of the last one gives the message up.
        var maxAttempts: Int
        /// The wait after a first failure, doubled after each one after that (at most an hour).
        var backoffMilliseconds: Int64
        /// How long a message stays reserved for this engine; renewed while it waits or is sent.
        var leaseMilliseconds: Int64
        var concurrency: Int
    }

    /// What the bookkeeping thread does next.
    enum Chore {
        case stop
        /// No provider (a callback not installed yet): these messages go back to the store, so an
        /// engine that has one sends them, and this one takes them again once it has one.
        case handBack([OutboxMessage])
        /// Messages this engine may have written without holding them (the write's commit is
        /// unknown): their leases go back to the store, due at once (`released` takes those found).
        case release(verificationIds: [String])
        /// Extend the leases of the messages this engine holds (queued, being sent, or sent and not
        /// yet recorded) until `until`.
        case renewLeases(verificationIds: [String], until: Timestamp)
        /// Record `record`, then, if `canSend`, take due messages from the store (`beginPoll`).
        case lookAtStore(record: [Finished], canSend: Bool)
        /// Write these outcomes in one transaction, then tell their events.
        case record([Finished])
        /// Sleep this long, or until woken.
        case sleep(milliseconds: Int64)
    }

    /// What a sender thread does next.
    enum SenderStep {
        case stop
        /// Sleep until woken (or a poll passes), then ask again.
        case wait
        /// Call the providers of `generation` (the chain current when the message was taken).
        case send(OutboxMessage, generation: Int)
        /// Record the message as undeliverable for `reason` without calling anyone.
        case giveUp(OutboxMessage, reason: DeliveryFailureReason)
    }

    /// The next step of a look at the store for due messages.
    enum PollStep: Equatable {
        case done
        /// Read when the next message falls due (`nextDue` takes the answer).
        case askWhenDue
        /// Claim up to `limit` messages due at `now`, leased until `leaseUntil` (`claimed` takes them).
        case claim(limit: Int, now: Timestamp, leaseUntil: Timestamp)
    }

    /// Which thread a newly queued message needs.
    enum Wake: Equatable {
        case sender
        /// No provider: the bookkeeping thread hands the message back to the store.
        case bookkeeper
    }

    /// What becomes of a message after an attempt.
    enum Verdict: Equatable {
        case sent(messageId: String?)
        /// Failed, with attempts left: due again at that time.
        case retry(at: Timestamp)
        /// Never tried again: the last attempt failed, the number cannot receive SMS, the code expired.
        case giveUp(reason: DeliveryFailureReason)
        /// Nothing tried (every provider skipped): due again then, without losing an attempt.
        case wait(until: Timestamp)
    }

    /// An attempt's outcome as the store records it, with the event that tells of it once recorded.
    struct Finished {
        var outcome: DeliveryOutcome
        var message: OutboxMessage
        var verdict: Verdict
        var report: DeliveryReport
        var attempt: Int
        var time: Timestamp

        /// What the event sink is told of the attempt: built only when asked for, as most engines
        /// have no sink.
        var event: DeliveryEvent? {
            var willRetry = false
            if case .retry = verdict { willRetry = true }
            return DeliveryEvent(message: message, report: report, attempt: attempt, willRetry: willRetry, at: time)
        }
    }

    /// How long an idle worker sleeps before looking for work that other processes queued.
    static let pollMilliseconds: Int64 = 500
    static let batchSize = 64
    /// How long delivery outcomes may wait to be recorded with later ones.
    static let recordDelayMilliseconds: Int64 = 2
    /// The longest backoff, however many attempts failed.
    static let maxBackoffMilliseconds: Int64 = 3_600_000

    let settings: Settings
    /// Messages waiting for a sender, in order.
    private(set) var queue: [OutboxMessage] = []
    /// Messages queued, being sent or sent-but-unrecorded here, whose leases this engine renews.
    private(set) var held: Set<String> = []
    /// Messages being sent, by verification: a resend ("call me instead") may queue the next
    /// delivery of a verification whose previous one is still in flight here.
    private var inFlight: [String: Int] = [:]
    /// Messages whose row a failed call may have written (its commit unknown), leased to this
    /// engine that never got them: released as soon as the store answers, so a retry of the call
    /// does not leave its SMS waiting for the lease. Each until its lease runs out at the latest.
    private(set) var unsure: [String: Timestamp] = [:]
    private var nextRelease: Timestamp
    /// Outcomes not yet written to the store.
    private(set) var unrecorded: [Finished] = []
    private(set) var hasProvider = false
    /// Bumped when the providers are replaced; calls in flight are counted by the generation they use.
    private(set) var generation = 0
    private var callsInFlight: [Int: Int] = [:]
    private(set) var stopping = false
    /// Look at the store as soon as the queue is empty (providers replaced, or the queue was full).
    private var lookWhenIdle = false
    private var nextStoreCheck: Timestamp
    private var nextRenewal: Timestamp
    private var nextRecordAttempt: Timestamp
    /// The bookkeeping thread has waited `recordDelayMilliseconds` for more outcomes to record.
    private var gathered = false
    /// The look at the store under way: when it ends at the latest, and how much the queue takes.
    private var pollDeadline: Timestamp
    private var pollRoom = 0

    init(settings: Settings, now: Timestamp) {
        self.settings = settings
        nextStoreCheck = now
        nextRenewal = now.adding(milliseconds: settings.leaseMilliseconds / 3)
        nextRecordAttempt = now
        pollDeadline = now
        nextRelease = now
    }

    // MARK: Bookkeeping

    /// The bookkeeping thread's next chore at `now`. Renewals and looks at the store come before
    /// recording: a steady stream of outcomes to record must not starve them.
    mutating func nextChore(now: Timestamp) -> Chore {
        if stopping { return .stop }
        if !hasProvider, !queue.isEmpty {
            let messages = queue
            held.subtract(messages.map(\.verificationId))
            queue.removeAll()
            return done(.handBack(messages))
        }
        if !unsure.isEmpty, now >= nextRelease {
            // One taken from the store since is held here, and one whose lease ran out is anyone's.
            unsure = unsure.filter { $0.value > now && !held.contains($0.key) }
            if !unsure.isEmpty {
                return done(.release(verificationIds: Array(unsure.keys.sorted().prefix(Self.batchSize))))
            }
        }
        if held.isEmpty { nextRenewal = now.adding(milliseconds: settings.leaseMilliseconds / 3) }
        if now >= nextRenewal {
            nextRenewal = now.adding(milliseconds: settings.leaseMilliseconds / 3)
            // Sorted, so the store's row locks are always taken in one order.
            return done(.renewLeases(verificationIds: held.sorted(), until: lease(at: now)))
        }
        let untilStoreCheck = nextStoreCheck.milliseconds - now.milliseconds
        if untilStoreCheck <= 0 || lookWhenIdle && hasProvider && queue.isEmpty {
            lookWhenIdle = false
            return done(.lookAtStore(record: takeOutcomes(), canSend: hasProvider))
        }
        if !unrecorded.isEmpty, now >= nextRecordAttempt {
            // The first outcome of a batch waits a moment for others: one transaction records them.
            if gathered { return done(.record(takeOutcomes())) }
            gathered = true
            return .sleep(milliseconds: Self.recordDelayMilliseconds)
        }
        let untilRecord =
            unrecorded.isEmpty
            ? Self.pollMilliseconds
            : nextRecordAttempt.milliseconds - now.milliseconds
        let untilRenewal = nextRenewal.milliseconds - now.milliseconds
        let untilRelease = unsure.isEmpty ? Self.pollMilliseconds : nextRelease.milliseconds - now.milliseconds
        return .sleep(
            milliseconds: max(1, min(untilStoreCheck, untilRecord, Self.pollMilliseconds, untilRenewal, untilRelease)))
    }

    /// A chore other than sleep ends the wait for more outcomes.
    private mutating func done(_ chore: Chore) -> Chore {
        gathered = false
        return chore
    }

    /// The lease of a message this engine takes or renews at `now`.
    func lease(at now: Timestamp) -> Timestamp { now.adding(milliseconds: settings.leaseMilliseconds) }

    /// The outcomes waiting to be written (at close: the last ones).
    mutating func takeOutcomes() -> [Finished] {
        defer { unrecorded.removeAll(keepingCapacity: true) }
        return unrecorded
    }

    /// The outcomes are in the store: their messages are no longer this engine's to renew,
    /// unless a later delivery of the same verification is queued or being sent here.
    mutating func recorded(_ batch: [Finished]) {
        for id in batch.map(\.outcome.verificationId)
        where inFlight[id] == nil && !queue.contains(where: { $0.verificationId == id }) {
            held.remove(id)
        }
    }

    /// The store refused a `record` chore (busy or unreachable): the outcomes are kept, their
    /// messages still held so they are not sent again meanwhile, and tried again a poll later.
    mutating func recordFailed(_ batch: [Finished], now: Timestamp) {
        putBack(batch)
        nextRecordAttempt = now.adding(milliseconds: Self.pollMilliseconds)
    }

    /// The store refused the outcomes a look at it began with: they are kept for the next chore.
    mutating func putBack(_ batch: [Finished]) {
        unrecorded.insert(contentsOf: batch, at: 0)
    }

    /// A call that wrote (or tried to write) `verificationId`'s message, leased to this engine
    /// until `leaseUntil`, failed without knowing whether its write committed.
    mutating func commitUnknown(_ verificationId: String, leaseUntil: Timestamp) {
        unsure[verificationId] = leaseUntil
    }

    /// The store took back the leases of `found` at `now`: they are due, so look at once. The
    /// others are tried again on the next poll, until their leases run out: the store did not
    /// answer, or their write is not visible yet (a COMMIT still waiting for a synchronous
    /// standby), or it never committed.
    mutating func released(_ found: [String], now: Timestamp) {
        for id in found { unsure[id] = nil }
        if !found.isEmpty { nextStoreCheck = now }
        nextRelease = now.adding(milliseconds: Self.pollMilliseconds)
    }

    // MARK: Looking at the store

    /// Begins a look at the store at `now`; without a provider it only sets the next one.
    mutating func beginPoll(now: Timestamp, canSend: Bool) -> PollStep {
        pollDeadline = now.adding(milliseconds: Self.pollMilliseconds)
        guard canSend else {
            nextStoreCheck = pollDeadline
            return .done
        }
        return askIfRoom()
    }

    /// Takes as much as keeps the sender threads busy, and no more.
    private mutating func askIfRoom() -> PollStep {
        pollRoom = min(Self.batchSize, 4 * settings.concurrency) - queue.count
        guard pollRoom > 0 else {
            // The queue is full enough: look again as soon as it is empty.
            lookWhenIdle = true
            nextStoreCheck = pollDeadline
            return .done
        }
        return .askWhenDue
    }

    /// The store's next due time (nil: nothing pending), read at `now`.
    mutating func nextDue(_ due: Timestamp?, now: Timestamp) -> PollStep {
        guard let due, due <= now else {
            nextStoreCheck = min(pollDeadline, due ?? pollDeadline)
            return .done
        }
        return .claim(limit: pollRoom, now: now, leaseUntil: lease(at: now))
    }

    /// Messages the store leased to this engine at `now`: queued, unless already held here.
    mutating func claimed(_ messages: [OutboxMessage], now: Timestamp) -> PollStep {
        guard !messages.isEmpty else {
            nextStoreCheck = pollDeadline
            return .done
        }
        let fresh = messages.filter { !held.contains($0.verificationId) }
        held.formUnion(fresh.map(\.verificationId))
        queue.append(contentsOf: fresh)
        if stopping {
            nextStoreCheck = now
            return .done
        }
        return askIfRoom()
    }

    /// A message given up fell back to another channel at `now`: its next delivery is due in
    /// the store, so look at once.
    mutating func fallbackDue(now: Timestamp) {
        nextStoreCheck = now
    }

    /// The store is busy or unavailable: look again on the next poll.
    mutating func pollFailed() {
        nextStoreCheck = pollDeadline
    }

    // MARK: Messages and senders

    /// A message whose outbox row this engine has just written (and leased to itself).
    mutating func enqueued(_ message: OutboxMessage) -> Wake {
        queue.append(message)
        held.insert(message.verificationId)
        return hasProvider ? .sender : .bookkeeper
    }

    /// A sender thread's next step at `now`. A code that can no longer be used is not worth an
    /// SMS (it may have waited in the queue): such a message is given up unsent.
    mutating func nextSend(now: Timestamp) -> SenderStep {
        if stopping { return .stop }
        guard hasProvider, !queue.isEmpty else { return .wait }
        let message = queue.removeFirst()
        inFlight[message.verificationId, default: 0] += 1
        if now >= message.expiresAt { return .giveUp(message, reason: .expired) }
        callsInFlight[generation, default: 0] += 1
        return .send(message, generation: generation)
    }

    /// An attempt at `message` ended with `report` at `now`, made with the providers of
    /// `generation` (nil: none were called). `random` (any value, uniformly drawn) spreads retries
    /// so messages failed together do not come back together. Returns what was decided; the
    /// outcome waits in `unrecorded`, its message still held (its lease renewed) until recorded.
    @discardableResult
    mutating func sendFinished(
        _ message: OutboxMessage, _ report: DeliveryReport, generation used: Int?,
        now: Timestamp, random: UInt64
    ) -> Finished {
        if let used {
            callsInFlight[used, default: 1] -= 1
            if callsInFlight[used] == 0 { callsInFlight[used] = nil }
        }
        let id = message.verificationId
        inFlight[id, default: 1] -= 1
        if inFlight[id] == 0 { inFlight[id] = nil }
        let attempt = message.attempts + 1
        let outcome: DeliveryOutcome
        let verdict: Verdict
        switch report.outcome {
        case let .sent(messageId):
            outcome = .sent(verificationId: id, provider: report.provider, messageId: messageId)
            verdict = .sent(messageId: messageId)
        case let .failed(problem):
            let retryAt = retryTime(attempt: attempt, problem, now: now, random: random)
            outcome = .failed(verificationId: id, provider: report.provider, reason: problem.reason, retryAt: retryAt)
            verdict = attempt < settings.maxAttempts ? .retry(at: retryAt) : .giveUp(reason: problem.reason)
        case let .undeliverable(problem):
            outcome = .undeliverable(verificationId: id, provider: report.provider, reason: problem.reason)
            verdict = .giveUp(reason: problem.reason)
        case let .noProvider(until):
            outcome = .deferred(verificationId: id, until: until)
            verdict = .wait(until: until)
        }
        let finished = Finished(
            outcome: outcome, message: message, verdict: verdict, report: report, attempt: attempt, time: now)
        unrecorded.append(finished)
        return finished
    }

    /// When attempt number `attempt`, failed with `problem` at `now`, is tried again: the doubling
    /// backoff plus up to half of it again (from `random`), and never before the provider's Retry-After.
    func retryTime(attempt: Int, _ problem: DeliveryProblem, now: Timestamp, random: UInt64) -> Timestamp {
        let backoff = min(
            settings.backoffMilliseconds << Int64(min(max(attempt - 1, 0), 20)),
            Self.maxBackoffMilliseconds)
        let jitter = Int64(random % UInt64(max(0, backoff / 2) + 1))
        return now.adding(milliseconds: max(backoff + jitter, problem.retryAfterMs ?? 0))
    }

    // MARK: Providers and stopping

    /// The providers were replaced (`hasProvider`: there are some now). Returns the new generation:
    /// the replacement is complete once no call of an older one is in flight.
    mutating func chainReplaced(hasProvider: Bool) -> Int {
        self.hasProvider = hasProvider
        generation += 1
        lookWhenIdle = true
        return generation
    }

    /// Whether a call to providers older than `generation` is still in flight.
    func hasCallsInFlight(before generation: Int) -> Bool {
        callsInFlight.contains { $0.key < generation && $0.value > 0 }
    }

    /// Close: every thread stops at its next step (a sender between two messages).
    mutating func stopRequested() {
        stopping = true
    }

    /// Once the threads have stopped: the messages still queued, to hand back to the store so
    /// the next engine sends them at once. Nothing is held after this.
    mutating func drain() -> [OutboxMessage] {
        defer {
            queue.removeAll()
            held.removeAll()
        }
        return queue
    }
}
