import XCTest
@testable import PhoneAuthCore

/// The delivery worker's decisions, driven with values alone: no threads, no store, and no clock
/// but the times each test passes in.
final class DeliveryStateMachineTests: XCTestCase {
    private typealias Machine = DeliveryStateMachine
    private let t0 = Timestamp(seconds: 1_800_000_000)
    private let settings = Machine.Settings(
        maxAttempts: 3, backoffMilliseconds: 1_000, leaseMilliseconds: 30_000,
        concurrency: 2)

    func testAQueuedMessageIsSent() {
        var machine = ready()
        XCTAssertEqual(machine.enqueued(message("a")), .sender)
        guard case let .send(sent, generation) = machine.nextSend(now: t0) else { return XCTFail("not sent") }
        XCTAssertEqual(sent.verificationId, "a")
        XCTAssertEqual(generation, 1)
        XCTAssertTrue(machine.hasCallsInFlight(before: 2))
        guard case .wait = machine.nextSend(now: t0) else { return XCTFail("a second send of nothing") }
        let finished = machine.sendFinished(
            sent, DeliveryReport(outcome: .sent(messageId: "SM1"), provider: "twilio"),
            generation: generation, now: t0, random: 0)
        XCTAssertEqual(finished.verdict, .sent(messageId: "SM1"))
        XCTAssertEqual(finished.event?.name, .codeSent)
        XCTAssertFalse(machine.hasCallsInFlight(before: 2))
        XCTAssertEqual(machine.held, ["a"], "held until its outcome is recorded")
    }

    func testALaterDeliveryQueuedWhileTheEarlierIsSentStaysHeldWhenTheEarlierIsRecorded() {
        var machine = ready()
        _ = machine.enqueued(message("a"))
        guard case let .send(first, generation) = machine.nextSend(now: t0) else { return XCTFail("not sent") }
        // "Call me instead" while the SMS is in flight: the call is the verification's next delivery.
        var call = message("a")
        call.seq = 2
        call.channel = .voice
        _ = machine.enqueued(call)
        let done = machine.sendFinished(
            first, DeliveryReport(outcome: .sent(messageId: "SM1")), generation: generation, now: t0, random: 0)
        machine.recorded([done])
        XCTAssertEqual(machine.held, ["a"], "the call's lease is still renewed")
        guard case let .send(second, used) = machine.nextSend(now: t0), second.seq == 2 else {
            return XCTFail("the call not sent")
        }
        // Recorded while the call is in flight: still held; once the call is recorded, released.
        machine.recorded([done])
        XCTAssertEqual(machine.held, ["a"])
        let called = machine.sendFinished(
            second, DeliveryReport(outcome: .sent(messageId: "CA1")), generation: used, now: t0, random: 0)
        machine.recorded([called])
        XCTAssertEqual(machine.held, [])
    }

    func testWithoutAProviderQueuedMessagesGoBackToTheStore() {
        var machine = Machine(settings: settings, now: t0)
        XCTAssertEqual(machine.enqueued(message("a")), .bookkeeper)
        guard case .wait = machine.nextSend(now: t0) else { return XCTFail("sent without a provider") }
        guard case let .handBack(messages) = machine.nextChore(now: t0) else { return XCTFail("not handed back") }
        XCTAssertEqual(messages.map(\.verificationId), ["a"])
        XCTAssertEqual(machine.held, [])
        XCTAssertEqual(machine.queue.count, 0)
    }

    func testAFailureIsRetriedAfterADoublingBackoffWithBoundedJitter() {
        var machine = ready(
            Machine.Settings(
                maxAttempts: 40, backoffMilliseconds: 1_000, leaseMilliseconds: 30_000,
                concurrency: 2))
        let timeout = DeliveryReport(outcome: .failed(DeliveryProblem(.timeout)), provider: "vonage")
        // Attempts 1, 2 and 4 wait 1, 2 and 8 seconds with no jitter.
        for (attempts, wait) in [(0, 1_000), (1, 2_000), (3, 8_000)] as [(Int, Int64)] {
            let finished = machine.sendFinished(
                message("a", attempts: attempts), timeout, generation: nil, now: t0,
                random: 0)
            XCTAssertEqual(finished.verdict, .retry(at: t0.adding(milliseconds: wait)), "attempt \(attempts + 1)")
            guard case let .failed(_, provider, reason, retryAt) = finished.outcome else {
                return XCTFail("not failed")
            }
            XCTAssertEqual([provider, reason.rawValue], ["vonage", "timeout"])
            XCTAssertEqual(retryAt, t0.adding(milliseconds: wait))
            XCTAssertEqual(value(finished.event, "willRetry"), .bool(true))
        }
        // Jitter adds up to half the backoff: 500 is the most, 501 comes round to none.
        XCTAssertEqual(
            machine.retryTime(attempt: 1, DeliveryProblem(.timeout), now: t0, random: 500),
            t0.adding(milliseconds: 1_500))
        XCTAssertEqual(
            machine.retryTime(attempt: 1, DeliveryProblem(.timeout), now: t0, random: 501),
            t0.adding(milliseconds: 1_000))
        for random: UInt64 in [1, 250, 499, 123_456_789, .max, .max - 1] {
            let at = machine.retryTime(attempt: 2, DeliveryProblem(.timeout), now: t0, random: random)
            XCTAssertGreaterThanOrEqual(at, t0.adding(milliseconds: 2_000), "\(random)")
            XCTAssertLessThanOrEqual(at, t0.adding(milliseconds: 3_000), "\(random)")
        }
        // The backoff stops doubling at an hour.
        XCTAssertEqual(
            machine.retryTime(attempt: 30, DeliveryProblem(.timeout), now: t0, random: 0),
            t0.adding(milliseconds: 3_600_000))
        // The provider's Retry-After is honoured when it is longer than the backoff, not when shorter.
        let limited = DeliveryReport(outcome: .failed(DeliveryProblem(.rateLimited, retryAfterMs: 60_000)))
        XCTAssertEqual(
            machine.sendFinished(message("b"), limited, generation: nil, now: t0, random: 0).verdict,
            .retry(at: t0.adding(milliseconds: 60_000)))
        let shortWait = DeliveryProblem(.rateLimited, retryAfterMs: 10)
        XCTAssertEqual(machine.retryTime(attempt: 1, shortWait, now: t0, random: 0), t0.adding(milliseconds: 1_000))
    }

    func testTheLastAllowedAttemptsFailureGivesUp() {
        var machine = ready()
        let timeout = DeliveryReport(outcome: .failed(DeliveryProblem(.timeout)))
        let second = machine.sendFinished(message("a", attempts: 1), timeout, generation: nil, now: t0, random: 0)
        XCTAssertEqual(second.verdict, .retry(at: t0.adding(milliseconds: 2_000)))
        let third = machine.sendFinished(message("a", attempts: 2), timeout, generation: nil, now: t0, random: 0)
        XCTAssertEqual(third.verdict, .giveUp(reason: .timeout))
        XCTAssertEqual(value(third.event, "willRetry"), .bool(false))
        XCTAssertEqual(value(third.event, "attempt"), .int(3))
        // The store is told of a failure (it counts the attempt and gives the message up too).
        guard case .failed(_, _, .timeout, _) = third.outcome else { return XCTFail("\(third.outcome)") }
        // A number that cannot receive SMS is given up at its first attempt.
        let invalid = DeliveryReport(outcome: .undeliverable(DeliveryProblem(.invalidNumber)))
        let first = machine.sendFinished(message("b"), invalid, generation: nil, now: t0, random: 0)
        XCTAssertEqual(first.verdict, .giveUp(reason: .invalidNumber))
        guard case .undeliverable(_, _, .invalidNumber) = first.outcome else { return XCTFail("\(first.outcome)") }
        // Every provider skipped: not an attempt, no event; due again when the first one may be tried.
        let skipped = DeliveryReport(outcome: .noProvider(until: t0.adding(seconds: 60)))
        let later = machine.sendFinished(message("c"), skipped, generation: nil, now: t0, random: 0)
        XCTAssertEqual(later.verdict, .wait(until: t0.adding(seconds: 60)))
        XCTAssertNil(later.event)
    }

    func testLeasesOfHeldMessagesAreRenewedBeforeTheyLapse() {
        var machine = ready()
        _ = machine.enqueued(message("b"))
        _ = machine.enqueued(message("a"))
        guard case let .send(b, generation) = machine.nextSend(now: t0) else { return XCTFail("not sent") }
        // A third of the lease after the last time nothing was held (t0), with the store looked at.
        let beforeRenewal = t0.adding(milliseconds: 9_999)
        look(&machine, at: beforeRenewal)
        guard case .sleep(1) = machine.nextChore(now: beforeRenewal) else { return XCTFail("not woken for renewal") }
        let renewal = t0.adding(milliseconds: 10_000)
        guard case let .renewLeases(ids, until) = machine.nextChore(now: renewal) else { return XCTFail("no renewal") }
        XCTAssertEqual(ids, ["a", "b"], "the one being sent and the one queued")
        XCTAssertEqual(until, t0.adding(milliseconds: 40_000))
        XCTAssertLessThan(renewal, t0.adding(milliseconds: 30_000), "renewed before the first lease lapsed")
        // The sent one is held until recorded, then no longer renewed.
        machine.sendFinished(
            b, DeliveryReport(outcome: .sent(messageId: nil)), generation: generation, now: renewal,
            random: 0)
        guard case .sleep(2) = machine.nextChore(now: renewal),
            case let .record(batch) = machine.nextChore(now: renewal)
        else { return XCTFail("not recorded") }
        XCTAssertEqual(machine.held, ["a", "b"])
        machine.recorded(batch)
        XCTAssertEqual(machine.held, ["a"])
        guard case let .renewLeases(ids, until) = machine.nextChore(now: t0.adding(milliseconds: 20_000)) else {
            return XCTFail("no second renewal")
        }
        XCTAssertEqual(ids, ["a"])
        XCTAssertEqual(until, t0.adding(milliseconds: 50_000))
    }

    func testNothingHeldNothingRenewed() {
        var machine = ready()
        let later = t0.adding(milliseconds: 10_000)
        look(&machine, at: later)
        guard case .sleep(500) = machine.nextChore(now: later) else { return XCTFail("renewed nothing") }
    }

    func testOutcomesThatArriveWithinTheRecordDelayAreRecordedTogether() {
        var machine = ready()
        _ = machine.enqueued(message("a"))
        _ = machine.enqueued(message("b"))
        guard case let .send(a, ga) = machine.nextSend(now: t0),
            case let .send(b, gb) = machine.nextSend(now: t0)
        else {
            return XCTFail("not sent")
        }
        let sent = DeliveryReport(outcome: .sent(messageId: nil))
        machine.sendFinished(a, sent, generation: ga, now: t0, random: 0)
        guard case .sleep(Machine.recordDelayMilliseconds) = machine.nextChore(now: t0) else {
            return XCTFail("recorded alone")
        }
        machine.sendFinished(b, sent, generation: gb, now: t0, random: 0)
        guard case let .record(batch) = machine.nextChore(now: t0) else { return XCTFail("not recorded") }
        XCTAssertEqual(batch.map(\.outcome.verificationId), ["a", "b"])
        XCTAssertEqual(batch.compactMap(\.event?.name), [.codeSent, .codeSent])
        // A refused write keeps them, and they are tried again a poll later (or with the next look).
        machine.recordFailed(batch, now: t0)
        guard case .sleep(500) = machine.nextChore(now: t0) else { return XCTFail("retried at once") }
        guard case let .lookAtStore(again, _) = machine.nextChore(now: t0.adding(milliseconds: 500)) else {
            return XCTFail("not tried again")
        }
        XCTAssertEqual(again.map(\.outcome.verificationId), ["a", "b"])
    }

    func testStopEndsTheThreadsAndDrainsTheQueue() {
        var machine = ready()
        for id in ["a", "b", "c"] { _ = machine.enqueued(message(id)) }
        guard case let .send(a, generation) = machine.nextSend(now: t0) else { return XCTFail("not sent") }
        machine.stopRequested()
        guard case .stop = machine.nextSend(now: t0), case .stop = machine.nextChore(now: t0) else {
            return XCTFail("went on after stop")
        }
        // The message being sent finishes; its outcome is the last to record, the others go back.
        machine.sendFinished(
            a, DeliveryReport(outcome: .sent(messageId: nil)), generation: generation, now: t0,
            random: 0)
        XCTAssertEqual(machine.takeOutcomes().map(\.outcome.verificationId), ["a"])
        XCTAssertEqual(machine.drain().map(\.verificationId), ["b", "c"])
        XCTAssertEqual(machine.held, [])
        XCTAssertEqual(machine.queue.count, 0)
        XCTAssertEqual(machine.takeOutcomes().count, 0)
        // A look at the store under way when stop came ends after its claim.
        XCTAssertEqual(machine.claimed([message("d")], now: t0), .done)
    }

    func testAMessageWhoseCodeExpiredIsGivenUp() {
        var machine = ready()
        _ = machine.enqueued(message("a", expiresIn: 60_000))
        _ = machine.enqueued(message("b", expiresIn: 120_000))
        let expired = t0.adding(milliseconds: 60_000)
        guard case let .giveUp(a, reason) = machine.nextSend(now: expired) else { return XCTFail("sent") }
        XCTAssertEqual([a.verificationId, reason.rawValue], ["a", "expired"])
        XCTAssertFalse(machine.hasCallsInFlight(before: 2), "no provider is called for it")
        let finished = machine.sendFinished(
            a, DeliveryReport(outcome: .undeliverable(DeliveryProblem(reason))),
            generation: nil, now: expired, random: 0)
        XCTAssertEqual(finished.verdict, .giveUp(reason: .expired))
        guard case .undeliverable("a", nil, .expired) = finished.outcome else { return XCTFail("\(finished.outcome)") }
        XCTAssertEqual(finished.event?.name, .deliveryFailed)
        XCTAssertEqual(value(finished.event, "willRetry"), .bool(false))
        guard case let .send(b, _) = machine.nextSend(now: expired) else { return XCTFail("the next not sent") }
        XCTAssertEqual(b.verificationId, "b")
    }

    func testTheStoreIsLookedAtWhenSomethingFallsDueAndWhenTheQueueEmpties() {
        var machine = Machine(settings: settings, now: t0)
        _ = machine.chainReplaced(hasProvider: true)
        guard case let .lookAtStore(first, true) = machine.nextChore(now: t0) else { return XCTFail("no first look") }
        XCTAssertEqual(first.count, 0)
        XCTAssertEqual(machine.beginPoll(now: t0, canSend: true), .askWhenDue)
        XCTAssertEqual(machine.nextDue(t0.adding(milliseconds: 200), now: t0), .done)
        guard case .sleep(200) = machine.nextChore(now: t0) else { return XCTFail("not woken when due") }
        let due = t0.adding(milliseconds: 200)
        guard case .lookAtStore = machine.nextChore(now: due) else { return XCTFail("not looked at when due") }
        XCTAssertEqual(machine.beginPoll(now: due, canSend: true), .askWhenDue)
        // Room for four messages per sender thread.
        XCTAssertEqual(machine.nextDue(due, now: due), .claim(limit: 8, now: due, leaseUntil: due.adding(seconds: 30)))
        XCTAssertEqual(machine.claimed((1...8).map { message("m\($0)") }, now: due), .done, "the queue is full")
        // The queue full, the next look comes once it is empty, before the poll interval.
        let soon = due.adding(milliseconds: 10)
        guard case .sleep = machine.nextChore(now: soon) else { return XCTFail("looked with a full queue") }
        for _ in 1...8 { _ = machine.nextSend(now: soon) }
        guard case .lookAtStore = machine.nextChore(now: soon) else { return XCTFail("not looked at when idle") }
        // Without a provider, a look only sets the next one.
        var idle = Machine(settings: settings, now: t0)
        guard case .lookAtStore(_, false) = idle.nextChore(now: t0) else { return XCTFail("no first look") }
        XCTAssertEqual(idle.beginPoll(now: t0, canSend: false), .done)
        guard case .sleep(500) = idle.nextChore(now: t0) else { return XCTFail("looked again at once") }
    }

    func testReplacedProvidersWaitForCallsInFlight() {
        var machine = ready()
        _ = machine.enqueued(message("a"))
        guard case let .send(a, old) = machine.nextSend(now: t0) else { return XCTFail("not sent") }
        let current = machine.chainReplaced(hasProvider: true)
        XCTAssertEqual(current, old + 1)
        XCTAssertTrue(machine.hasCallsInFlight(before: current))
        machine.sendFinished(a, DeliveryReport(outcome: .sent(messageId: nil)), generation: old, now: t0, random: 0)
        XCTAssertFalse(machine.hasCallsInFlight(before: current))
    }

    /// A call whose write of its message may have committed (its answer lost): the message,
    /// leased to this engine that never got it, is released at once, then looked for. One the
    /// store did not find (not visible yet: its COMMIT still waits for a synchronous standby) or
    /// could not release (no answer) is tried again on every poll, until found or its lease is
    /// over; one held here is never released.
    func testAMessageWhoseCommitIsUnknownIsReleasedOnceTheStoreHasIt() {
        var machine = ready()
        let lease = t0.adding(milliseconds: 30_000)
        machine.commitUnknown("a", leaseUntil: lease)
        machine.commitUnknown("b", leaseUntil: lease)
        guard case let .release(ids) = machine.nextChore(now: t0) else { return XCTFail("not released") }
        XCTAssertEqual(ids, ["a", "b"])
        machine.released([], now: t0)
        guard case .sleep(Machine.pollMilliseconds) = machine.nextChore(now: t0) else {
            return XCTFail("not a poll's wait before the next try")
        }
        let later = t0.adding(milliseconds: Machine.pollMilliseconds)
        guard case .release(["a", "b"]) = machine.nextChore(now: later) else { return XCTFail("not tried again") }
        machine.released(["a"], now: later)
        XCTAssertEqual(Array(machine.unsure.keys), ["b"])
        guard case .lookAtStore = machine.nextChore(now: later) else { return XCTFail("not looked for at once") }
        let next = later.adding(milliseconds: Machine.pollMilliseconds)
        guard case .release(["b"]) = machine.nextChore(now: next) else { return XCTFail("b not tried again") }

        machine.released(["b"], now: next)

        // Taken from the store since ("c" is held here): not released; a lease that ran out ("d"): dropped.
        _ = machine.claimed([message("c")], now: next)
        machine.commitUnknown("c", leaseUntil: lease)
        machine.commitUnknown("d", leaseUntil: next)
        let last = next.adding(milliseconds: Machine.pollMilliseconds)
        if case .release = machine.nextChore(now: last) { XCTFail("released a held one, or one whose lease is over") }
        XCTAssertTrue(machine.unsure.isEmpty)
    }

    // MARK: Helpers

    /// A machine with providers, its first look at the store done.
    private func ready(_ settings: Machine.Settings? = nil) -> Machine {
        var machine = Machine(settings: settings ?? self.settings, now: t0)
        _ = machine.chainReplaced(hasProvider: true)
        look(&machine, at: t0)
        return machine
    }

    /// A look at the store, due at `now`, that finds nothing due.
    private func look(_ machine: inout Machine, at now: Timestamp) {
        guard case .lookAtStore = machine.nextChore(now: now) else { return XCTFail("no look at the store") }
        XCTAssertEqual(machine.beginPoll(now: now, canSend: true), .askWhenDue)
        XCTAssertEqual(machine.nextDue(nil, now: now), .done)
    }

    private func message(_ id: String, attempts: Int = 0, expiresIn: Int64 = 300_000) -> OutboxMessage {
        OutboxMessage(
            verificationId: id, phone: "+16505551234", languageCode: "en", sealedCode: [1], channel: .sms, seq: 1,
            tenant: .defaultPool, attempts: attempts, purpose: .signIn, expiresAt: t0.adding(milliseconds: expiresIn))
    }

    private func value(_ event: DeliveryEvent?, _ field: String) -> JSONValue? {
        event?.fields.first { $0.0 == field }?.1 ?? nil
    }
}
