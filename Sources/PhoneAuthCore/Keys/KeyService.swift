import Glibc

/// The keys: the signing keys that are listed, rotated and retired, the public key set, and
/// sealing the store under a new master key.
package final class KeyService {
    let ring: KeyRing
    private let config: EngineConfig
    private let clock: Clock
    private let events: EventLog

    init(ring: KeyRing, config: EngineConfig, clock: Clock, events: EventLog) {
        self.ring = ring
        self.config = config
        self.clock = clock
        self.events = events
    }

    /// A signing key as listed: `ageDays` counted to `now`.
    package struct SigningKeyState: Sendable {
        package let kid: String
        package let algorithm: String
        package let createdAt: Timestamp
        package let ageDays: Int64
        package let active: Bool
        package let retiresAt: Timestamp?
    }

    /// The keys that verify tokens now: the active one, and rotated ones until they retire.
    package func signingKeys() -> [SigningKeyState] {
        let now = clock.now()
        return ring.signingKeyTimes.map {
            SigningKeyState(
                kid: $0.key.kid, algorithm: $0.key.algorithm.rawValue, createdAt: $0.createdAt,
                ageDays: (now.milliseconds - $0.createdAt.milliseconds) / 86_400_000, active: $0.active,
                retiresAt: $0.retireAt)
        }
    }

    /// Makes a new key the active one (of `algorithm`, ES256, RS256 or EdDSA, or the configured
    /// one); the old one verifies until the tokens it signed have expired.
    package func rotateSigningKey(algorithm name: String?) throws -> [SigningKeyState] {
        var algorithm: EngineConfig.SigningAlgorithm?
        if let name {
            guard let value = EngineConfig.SigningAlgorithm(rawValue: name) else {
                throw PhoneAuthError(
                    .invalidArgument, "The field 'algorithm' must be ES256, RS256 or EdDSA.",
                    details: [("field", .string("algorithm"))])
            }
            algorithm = value
        }
        try ring.rotate(algorithm: algorithm, retireAfterSeconds: config.idTokenTtlSeconds)
        return signingKeys()
    }

    /// Stops a key verifying now (a leaked key); if it was the active one, a new one takes over.
    package func retireSigningKey(kid: String) throws -> [SigningKeyState] {
        guard try ring.retire(kid: kid, retireOthersAfterSeconds: config.idTokenTtlSeconds) else {
            throw PhoneAuthError(
                .invalidArgument, "No signing key that still verifies has this kid.",
                details: [("field", .string("kid"))])
        }
        return signingKeys()
    }

    package var jwks: JSONValue {
        .object([("keys", .array(ring.publishedKeys.map(\.publicJWK)))])
    }

    /// Seals every secret of the store under `newMasterKey` (64 hex digits or base64 of 32 bytes)
    /// in one transaction. With a key file, the new key is written beside it first and replaces it
    /// once the store is rekeyed; otherwise the caller must give the new key to every engine
    /// (configuration or environment) before they open the store again. Other engines on the
    /// store must be stopped first: they would keep sealing with the old key.
    package func rekey(newMasterKey: String) throws -> String? {
        let key: [UInt8]
        do { key = try MasterKey.decode(newMasterKey, source: "field 'newMasterKey'") } catch {
            throw PhoneAuthError(.invalidArgument, error.message, details: [("field", .string("newMasterKey"))])
        }
        let keyFile = MasterKey.keyFile(configured: config.masterKey, database: Database(config))
        if let keyFile { try MasterKey.writeKeyFile(keyFile + ".new", key: key) }
        do {
            try ring.rekey(to: key)
        } catch {
            if let keyFile { Glibc.unlink(keyFile + ".new") }
            throw error
        }
        if let keyFile, rename(keyFile + ".new", keyFile) != 0 {
            throw PhoneAuthError(
                .storageError,
                "The store is rekeyed but \(keyFile).new could not replace the key file; move it into place.",
                details: [("path", .string(keyFile))])
        }
        events.emit(.rekeyed, at: clock.now(), [("keyFile", keyFile.map { .string($0) })])
        return keyFile
    }

    /// Opens the key ring, finishing a rekey that was interrupted: one that committed but had not
    /// yet renamed `<key file>.new` into place opens with the new key, which then takes its place;
    /// one that never committed leaves a `.new` file that is removed.
    static func openRing(
        store: Store, master: [UInt8], keyFile: String?, config: EngineConfig, clock: Clock
    ) throws -> KeyRing {
        func open(_ key: [UInt8]) throws -> KeyRing {
            try KeyRing(
                store: store, masterKey: key, algorithm: config.signingAlgorithm, clock: clock,
                idTokenTtlSeconds: config.idTokenTtlSeconds, rotationDays: config.signingKeyRotationDays)
        }
        guard let keyFile, let pending = try MasterKey.readKeyFile(keyFile + ".new") else { return try open(master) }
        do {
            let ring = try open(master)
            Glibc.unlink(keyFile + ".new")
            return ring
        } catch let error as PhoneAuthError where error.code == .invalidConfiguration {
            let ring = try open(pending)
            guard rename(keyFile + ".new", keyFile) == 0 else {
                throw PhoneAuthError(
                    .storageError, "The rekeyed master key \(keyFile).new cannot be moved into place.",
                    details: [("path", .string(keyFile))])
            }
            return ring
        }
    }
}
