/// Why an app check was not accepted.
package enum AppCheckRefusal: String, Sendable, CaseIterable {
    /// No check of this kind has the ID.
    case unknown
    case alreadyUsed
    case expired
    /// The check exists, but what was presented does not match it (secret, scheme).
    case mismatch
}
