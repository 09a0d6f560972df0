/// The sealed keys: signing keys and the secrets that seal codes, bodies and refresh secrets.
/// Part of `Store`; SQLStore implements it in this folder's SQL (see Storage/Store.swift).
package protocol KeyStore: AnyObject, Sendable {
    func secrets() throws -> [StoredSecret]
    /// Adds a secret unless one of the same kind already exists; returns the secrets of that kind
    /// (so two processes creating a key at once settle on one).
    func addSecretIfNoneOfKind(_ secret: StoredSecret) throws -> [StoredSecret]
    /// Rewrites every sealed value in one transaction (SQLStore+Reseal).
    func reseal(
        secrets: (StoredSecret) throws -> [UInt8], column: (SealedColumn, String, [UInt8]) throws -> [UInt8]) throws
    /// Adds a signing key and schedules the others' retirement (see SQLStore).
    func rotateSigningKey(_ secret: StoredSecret, retireOthersAt: Timestamp, ifNewestBefore: Timestamp?) throws -> Bool
    /// Ends a signing key now; whether it was live.
    func retireSigningKey(kid: String, now: Timestamp) throws -> Bool
}
