/// A key kept in the store, sealed under the master key.
package struct StoredSecret: Sendable {
    package var kid: String
    package var kind: String
    package var sealed: [UInt8]
    package var createdAt: Timestamp
    /// A signing key's end: after it, the key verifies nothing and leaves the JWKS (nil: current).
    package var retireAt: Timestamp? = nil
    /// For a signing key made current by a configuration change: when the others retire.
    package var retireAtOfOthers: Timestamp? = nil
}
