/// Receives the engine's events as JSON objects, for the host's logs and alerts. Called from the
/// thread that made the call, or from the delivery thread: it must be thread-safe and quick.
package protocol EventSink: AnyObject, Sendable {
    func record(_ event: JSONValue)
}

/// The engine's structured events: {"event", "time", …fields}. Events name numbers masked to
/// their last four digits and never hold codes, secrets or tokens.
final class EventLog: @unchecked Sendable {  // the sink is only read and replaced under `lock`
    private let lock = Lock()
    private var sink: EventSink?

    func setSink(_ newSink: EventSink?) { lock.withLock { sink = newSink } }

    /// Whether events are told to anyone: what is only built for them need not be built otherwise.
    var hasSink: Bool { lock.withLock { sink != nil } }

    /// `fields` with nil values are left out. Nothing is built when no sink is set.
    func emit(_ event: EventName, at time: Timestamp, _ fields: @autoclosure () -> [(String, JSONValue?)]) {
        guard let sink = lock.withLock({ sink }) else { return }
        var object = JSONObjectBuilder()
        object.set("event", .string(event.rawValue))
        object.set("time", .string(time.rfc3339))
        for (key, value) in fields() { object.set(key, value) }
        sink.record(object.value)
    }
}
