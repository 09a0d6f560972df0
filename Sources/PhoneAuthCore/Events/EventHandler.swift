/// A host's in-process receiver of events: it takes each event's JSON (as the webhook's body)
/// and answers whether it took it; false, and the event is offered again later.
package protocol EventHandler: Sendable {
    func deliver(_ eventJSON: String) -> Bool
}
