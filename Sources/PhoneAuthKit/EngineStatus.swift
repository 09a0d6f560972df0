import PhoneAuthCore

/// What `status()` reports: the store's counts and the signing keys.
public struct EngineStatus: Sendable {
    /// The store's schema version.
    public let schemaVersion: Int
    /// Accounts in the store.
    public let users: Int
    /// Sessions not signed out or revoked.
    public let liveSessions: Int
    /// SMS waiting to be sent.
    public let smsQueued: Int
    /// SMS sent in the last hour.
    public let smsSentLastHour: Int
    /// SMS whose delivery failed in the last hour.
    public let smsFailedLastHour: Int
    /// Events recorded and not yet delivered (0 without the `events` configuration).
    public let eventsPending: Int
    /// The signing keys, as `signingKeys()` lists them.
    public let signingKeys: [SigningKeyInfo]

    /// The status as the JSON text of an object, as `getStatus` writes it.
    public var json: String { JSONCodec.serialize(ResultJSON.status(state)) }

    private let state: Engine.Status

    init(_ status: Engine.Status) {
        state = status
        let s = status.store
        schemaVersion = s.schemaVersion
        users = Int(s.users)
        liveSessions = Int(s.liveSessions)
        smsQueued = Int(s.smsQueued)
        smsSentLastHour = Int(s.smsSentLastHour)
        smsFailedLastHour = Int(s.smsFailedLastHour)
        eventsPending = Int(s.eventsPending)
        signingKeys = status.signingKeys.map(SigningKeyInfo.init)
    }
}
