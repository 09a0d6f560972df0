/// App verification: push receipts, captcha challenges and spent captcha tokens.
/// Part of `Store`; SQLStore implements it in this folder's SQL (see Storage/Store.swift).
package protocol AppCheckStore: AnyObject, Sendable {
    /// Records a push receipt (`secretHash` set) or a captcha challenge (`scheme` set), unless the
    /// client's address (`ipKey`) has made `ipLimit` of them in the last hour: then the limit.
    func addAppCheck(
        id: String, kind: AppCheckKind, secretHash: [UInt8]?, scheme: String?, expiresAt: Timestamp,
        now: Timestamp, ipKey: String?, ipLimit: Int
    ) throws -> LimitTrip?
    /// Records `id` (a captcha token's hash) as used; false if it already was.
    func claimAppCheck(id: String, kind: AppCheckKind, expiresAt: Timestamp) throws -> Bool
    /// Uses up the active, unexpired check `id` of `kind` if `accepts(secretHash, scheme)`; with
    /// `spendOnMismatch` a wrong answer uses it up too (a secret gets one guess). nil when it was
    /// accepted, else why not.
    func useAppCheck(
        id: String, kind: AppCheckKind, now: Timestamp, spendOnMismatch: Bool,
        accepts: ([UInt8]?, String?) -> Bool
    ) throws -> AppCheckRefusal?
}
