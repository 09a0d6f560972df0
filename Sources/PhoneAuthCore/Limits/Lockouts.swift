/// The lockouts of numbers that got too many wrong codes in a row, which an admin may lift.
package final class Lockouts {
    private let clock: Clock
    private let store: any LimitStore
    private let events: EventLog

    init(clock: Clock, store: any LimitStore, events: EventLog) {
        self.clock = clock
        self.store = store
        self.events = events
    }

    /// Ends a number's lockout and its run of wrong codes (the remedy when an attacker keeps a
    /// victim's number locked); whether it had any. Reported as the event `numberUnlocked`.
    package func unlockPhoneNumber(_ phoneNumber: String?) throws -> Bool {
        let phone = try PhoneNumber.parse(phoneNumber)
        let unlocked = try store.unlockPhoneNumber(phone.e164)
        events.emit(
            .numberUnlocked, at: clock.now(),
            [
                ("phoneNumber", .string(phone.masked)),
                ("hadFailures", .bool(unlocked)),
            ])
        return unlocked
    }
}
