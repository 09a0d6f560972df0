/// The signing keys and the engine's state, as the catalogue, PhoneAuthKit and the CLI see them.
extension Engine {
    /// A signing key as listed: `ageDays` counted to `now`.
    package struct SigningKeyState: Sendable {
        package let kid: String
        package let algorithm: String
        package let createdAt: Timestamp
        package let ageDays: Int64
        package let active: Bool
        package let retiresAt: Timestamp?
    }

    /// What getStatus reports: the store's counts and the signing keys.
    package struct Status: Sendable {
        package let store: StoreStatus
        package let signingKeys: [SigningKeyState]
    }

    /// The keys that verify tokens now: the active one, and rotated ones until they retire.
    package func signingKeys() -> [SigningKeyState] {
        let now = clock.now()
        return keys.signingKeyTimes.map {
            SigningKeyState(kid: $0.key.kid, algorithm: $0.key.algorithm.rawValue, createdAt: $0.createdAt,
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
                throw PhoneAuthError(.invalidArgument, "The field 'algorithm' must be ES256, RS256 or EdDSA.",
                                     details: [("field", .string("algorithm"))])
            }
            algorithm = value
        }
        try keys.rotate(algorithm: algorithm, retireAfterSeconds: config.idTokenTtlSeconds)
        return signingKeys()
    }

    /// Stops a key verifying now (a leaked key); if it was the active one, a new one takes over.
    package func retireSigningKey(kid: String) throws -> [SigningKeyState] {
        guard try keys.retire(kid: kid, retireOthersAfterSeconds: config.idTokenTtlSeconds) else {
            throw PhoneAuthError(.invalidArgument, "No signing key that still verifies has this kid.",
                                 details: [("field", .string("kid"))])
        }
        return signingKeys()
    }

    package func status() throws -> Status {
        Status(store: try store.status(now: clock.now()), signingKeys: signingKeys())
    }
}
