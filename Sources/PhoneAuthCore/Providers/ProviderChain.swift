/// What became of one attempt at a message.
struct DeliveryReport {
    enum Outcome {
        case sent(messageId: String?)
        /// Try again later: the problem, from the last provider tried.
        case failed(DeliveryProblem)
        /// The number cannot receive SMS: never again.
        case undeliverable(DeliveryProblem)
        /// Every provider is being skipped: nothing was sent, nothing tried; wait until then.
        case noProvider(until: Timestamp)
    }

    var outcome: Outcome
    /// The message's encoding and segments (nil when no message was made).
    var cost: SMSCost?
    /// The provider that answered last (nil when none was tried).
    var provider: String?
    /// Providers that faulted before it, for this message.
    var failedOver: [String] = []
    /// The language the message went in (nil when no message was made).
    var language: String? = nil
}

/// The providers of an engine, in order, each behind its circuit breaker. A message goes to the
/// first one of its channel not being skipped; a provider fault sends it on to the next at once;
/// an answer that says "later" (or an invalid number, or success) ends the attempt.
final class ProviderChain: Sendable {
    /// A provider on one channel: a provider of several channels is a member for each, with a
    /// breaker of its own, so WhatsApp's outage does not skip its SMS.
    struct Member {
        let name: String
        let sender: SMSSender
        let breaker: CircuitBreaker
        /// nil: every channel (a host's sender, the console).
        var channel: Channel? = nil
    }

    let members: [Member]
    private let clock: Clock
    private let events: EventLog

    init(_ members: [Member], clock: Clock, events: EventLog) {
        self.members = members
        self.clock = clock
        self.events = events
    }

    /// A host's sender alone: never skipped.
    convenience init(single sender: SMSSender, name: String, clock: Clock, events: EventLog) {
        self.init(
            [Member(name: name, sender: sender, breaker: CircuitBreaker(threshold: 0, openMilliseconds: 0))],
            clock: clock, events: events)
    }

    func carries(_ channel: Channel) -> Bool {
        members.contains { $0.channel == nil || $0.channel == channel }
    }

    func deliver(_ message: SMSMessage) -> DeliveryReport {
        var failedOver: [String] = []
        var lastFault: (String, DeliveryProblem)?
        var skippedUntil: Timestamp?
        for member in members where member.channel == nil || member.channel == message.channel {
            let probe: Bool
            switch member.breaker.admit(now: clock.now()) {
            case let .skip(until):
                skippedUntil = min(skippedUntil ?? until, until)
                continue
            case let .go(p): probe = p
            }
            let result = member.sender.send(message)
            let worked: Bool
            switch result {
            case .sent, .invalidNumber: worked = true
            case .retryLater, .providerFault: worked = false
            }
            report(member, member.breaker.record(worked: worked, probe: probe, now: clock.now()), result)
            switch result {
            case let .sent(id):
                return DeliveryReport(outcome: .sent(messageId: id), provider: member.name, failedOver: failedOver)
            case let .invalidNumber(p):
                return DeliveryReport(outcome: .undeliverable(p), provider: member.name, failedOver: failedOver)
            case let .retryLater(p):
                return DeliveryReport(outcome: .failed(p), provider: member.name, failedOver: failedOver)
            case let .providerFault(p):
                failedOver.append(member.name)
                lastFault = (member.name, p)
            }
        }
        if let (name, problem) = lastFault {
            return DeliveryReport(outcome: .failed(problem), provider: name, failedOver: Array(failedOver.dropLast()))
        }
        return DeliveryReport(
            outcome: .noProvider(
                until: skippedUntil ?? clock.now().adding(milliseconds: CircuitBreaker.probeWaitMilliseconds)))
    }

    private func report(_ member: Member, _ change: CircuitBreaker.Change?, _ result: SMSSendResult) {
        switch change {
        case let .opened(failures)?:
            var reason: DeliveryFailureReason?
            if case let .retryLater(p) = result { reason = p.reason }
            if case let .providerFault(p) = result { reason = p.reason }
            events.emit(
                .providerSkipped, at: clock.now(),
                [
                    ("provider", .string(member.name)), ("channel", member.channel.map { .string($0.rawValue) }),
                    ("failures", .int(Int64(failures))),
                    ("reason", reason.map { .string($0.rawValue) }),
                    ("seconds", .int(member.breaker.openMilliseconds / 1000)),
                ])
        case .restored?:
            events.emit(
                .providerRestored, at: clock.now(),
                [("provider", .string(member.name)), ("channel", member.channel.map { .string($0.rawValue) })])
        case nil: break
        }
    }
}

extension ProviderChain {
    /// The chain the configuration names: the console, or its HTTP providers in order, each with
    /// its circuit breaker; nil for the `callback` provider, which the host installs.
    static func configured(_ config: EngineConfig, clock: Clock, events: EventLog) -> ProviderChain? {
        switch config.smsProvider {
        case .console: return ProviderChain(single: ConsoleSender(), name: "console", clock: clock, events: events)
        case .providers:
            let client = HTTPClient()
            return ProviderChain(
                config.smsProviders.flatMap { provider in
                    let sender = HTTPSender(provider, client: client, clock: clock)
                    return provider.channels.sorted().map { channel in
                        Member(
                            name: provider.endpoint.name, sender: sender,
                            breaker: CircuitBreaker(
                                threshold: config.smsBreakerFailures,
                                openMilliseconds: config.smsBreakerSeconds * 1000),
                            channel: channel)
                    }
                }, clock: clock, events: events)
        case .callback: return nil
        }
    }
}
