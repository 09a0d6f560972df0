/// The durable events, as the engine's callers see them: who receives them, what still waits,
/// and, for an operator, the waiting ones listed or one dropped (an event its receiver will never
/// take holds back that user's later ones).
package final class EventOutbox: Sendable {
    private let store: any EventStore
    private let settings: EventSettings?
    private let dispatcher: EventDispatcher?
    private let clock: Clock

    init(store: any EventStore, settings: EventSettings?, clock: Clock, log: EventLog) {
        self.store = store
        self.settings = settings
        self.clock = clock
        dispatcher = settings.map { EventDispatcher(store: store, settings: $0, clock: clock, log: log) }
    }

    func start() throws { try dispatcher?.start() }
    func stop() { dispatcher?.stop() }

    /// The host's receiver of events (nil: the `events` webhook again). Needs the `events` configuration.
    package func setHandler(_ handler: (any EventHandler)?) throws(PhoneAuthError) {
        guard let dispatcher else { throw Self.notRecorded }
        dispatcher.setHandler(handler)
    }

    /// Events recorded and not yet delivered: how many, and how long ago (in whole seconds) the
    /// oldest was recorded.
    package func backlog() throws -> (count: Int64, oldestAgeSeconds: Int64?) {
        let (count, oldest) = try store.pendingEvents()
        return (count, oldest.map { max(0, clock.now().milliseconds - $0.milliseconds) / 1000 })
    }

    /// Undelivered events in ID order (a user's in the order they will go), after `pageToken`.
    package func list(
        maxResults: Int, pageToken: String?, subject: String? = nil
    ) throws -> (events: [WaitingEvent], nextPageToken: String?) {
        let events = try store.listPendingEvents(afterId: pageToken, subject: subject, limit: maxResults + 1).map {
            event in
            var shown = event
            // A number's own events (phoneNumberLocked) are kept under the number.
            if shown.subject.hasPrefix("+") { shown.subject = settings?.shown(shown.subject)?.stringValue ?? "" }
            return shown
        }
        let page = Array(events.prefix(maxResults))
        return (page, events.count > maxResults ? page.last?.id : nil)
    }

    /// Deletes an undelivered event without delivering it (an operator's last resort).
    package func drop(eventId: String?) throws {
        guard let eventId, !eventId.isEmpty else {
            throw PhoneAuthError(
                .invalidArgument, "The field 'eventId' is required.", details: [("field", .string("eventId"))])
        }
        guard try store.dropPendingEvent(id: eventId, now: clock.now()) else {
            throw PhoneAuthError(
                .invalidArgument, "No undelivered event has this ID.",
                details: [("field", .string("eventId")), ("reason", .string("unknown"))])
        }
    }

    static let notRecorded = PhoneAuthError(
        .invalidArgument, "Events are not recorded: the configuration has no 'events' object.",
        details: [("field", .string("events"))])
}
