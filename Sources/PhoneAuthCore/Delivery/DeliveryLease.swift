/// A message reserved for one engine's delivery worker (`owner`, random per worker) until `until`.
package struct DeliveryLease: Sendable {
    package var owner: String
    package var until: Timestamp

    package init(owner: String, until: Timestamp) {
        self.owner = owner
        self.until = until
    }
}
