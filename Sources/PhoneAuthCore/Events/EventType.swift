/// What an event reports: each is written in the transaction that made the change, so it is
/// delivered (at least once) exactly when the change happened.
package enum EventType: String, CaseIterable, Sendable {
    case userCreated, userSignedIn, userUpdated, userDeleted
    case secondFactorEnrolled, secondFactorRemoved
    case sessionRevoked
    case phoneNumberLocked
    /// The pumping defense refused a send (or, in record mode, flagged one): its decision.
    case pumpingSuspected
}
