/// Where a delivery stands, as `verifications.delivery` holds a verification's current one and
/// `deliveries.status` its earlier ones.
package enum DeliveryState: String, Sendable, CaseIterable {
    /// Nothing to send: a test number's code, or a temporary proof.
    case none
    /// Due at `due_at` for any engine's worker: not tried yet, tried again later, or handed back.
    case pending
    /// Leased to one engine's worker (`delivery_lease`) until `due_at`.
    case sending
    /// Sent, and waiting for a receipt until `due_at`, when it falls back to `fallback`'s channel.
    case awaiting
    /// Taken by a provider.
    case sent
    /// A receipt said it arrived.
    case delivered
    /// Given up, or a receipt said it never arrived.
    case failed
    /// Only in `deliveries`: a message a resend or a fallback replaced before a provider took it.
    case replaced

    /// As callers see it (getVerificationStatus): leased is pending, and a message awaiting its
    /// receipt (or its fallback) is sent.
    package var shown: DeliveryState {
        switch self {
        case .sending: .pending
        case .awaiting: .sent
        default: self
        }
    }

    /// The state written into a statement as an SQL literal, for a condition that a partial
    /// index's predicate (`verifications_due`) must imply: bound as a parameter, it would leave
    /// the planner unable to use the index (SQLite scans the table instead).
    var sqlLiteral: String { "'\(rawValue)'" }
}
