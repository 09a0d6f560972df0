/// An event taken from the outbox for delivery: its JSON as receivers get it.
package struct PendingEvent: Sendable {
    package var id: String
    /// Whose event it is (a uid, or a phone number): its events are delivered in ID order.
    package var subject: String
    package var type: String
    package var payload: String
    /// Deliveries tried and failed so far.
    package var attempts: Int
}
