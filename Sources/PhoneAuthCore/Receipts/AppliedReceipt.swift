/// What a receipt did, once applied.
package struct AppliedReceipt: Sendable {
    package enum Effect: Sendable {
        /// No message of this provider has that ID (never sent here, or purged).
        case unknownMessage
        /// The delivery already had this or a final status (a replayed or repeated receipt).
        case duplicate
        /// A status that changes nothing (sent: the send said so already).
        case noChange
        /// The delivery is now delivered, or failed; `current` when it is its verification's
        /// latest delivery (an earlier one, replaced by a resend or a fallback, changes no more).
        case delivered(current: Bool)
        case failed(current: Bool)
        /// It failed and its verification fell back to its next channel: that message, due now.
        case fellBack(OutboxMessage)
    }

    /// Why a receipt changed nothing, as the result's `reason` says (one effect each).
    package enum Unapplied: String, Sendable, CaseIterable {
        case unknownMessage, duplicate, noChange
    }

    package var receipt: DeliveryReceipt
    package var effect: Effect
    /// The delivery's verification, phone number and channel (nil when unknown).
    package var verificationId: String?
    package var phone: String?
    package var channel: Channel?

    package var applied: Bool {
        switch effect {
        case .unknownMessage, .duplicate, .noChange: false
        case .delivered, .failed, .fellBack: true
        }
    }

    /// Why it was not applied, as the result says.
    package var reason: String? { unapplied?.rawValue }

    package var unapplied: Unapplied? {
        switch effect {
        case .unknownMessage: .unknownMessage
        case .duplicate: .duplicate
        case .noChange: .noChange
        default: nil
        }
    }
}
