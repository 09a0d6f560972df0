/// An undelivered event as an operator sees it (`listPendingEvents`): never its payload.
package struct WaitingEvent: Sendable {
    package var id: String
    package var type: String
    /// Whose it is: a uid, or (phoneNumberLocked) the number, masked unless events show numbers.
    package var subject: String
    package var attempts: Int
    package var lastError: String?
    package var createdAt: Timestamp
    /// When it is next tried (while leased: when the lease runs out).
    package var dueAt: Timestamp
}
