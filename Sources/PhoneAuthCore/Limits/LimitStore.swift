/// Limits: the lockouts an admin lifts.
/// Part of `Store`; SQLStore implements it in this folder's SQL (see Storage/Store.swift).
package protocol LimitStore: AnyObject, Sendable {
    /// Ends a number's run of wrong codes and its lockout (an admin's remedy); whether it had one.
    func unlockPhoneNumber(_ phone: String) throws -> Bool
}
