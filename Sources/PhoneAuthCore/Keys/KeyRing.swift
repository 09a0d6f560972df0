import Crypto
import FoundationEssentials

/// The engine's secrets: the key that hashes SMS codes, the ID-token signing keys and the key
/// that seals queued SMS bodies. Kept in the store sealed (AES-GCM) under the master key.
// @unchecked: the current key set is only replaced under its lock; the keys themselves never change.
package final class KeyRing: @unchecked Sendable {
    package let codeKey: SymmetricKey

    private let keyedCodeHMAC: HMAC<SHA256>

    static let codeKeyKind = "code-hmac"
    /// How long a copy of the signing keys is trusted before the store is read again: another
    /// engine's rotation or retirement reaches this one within it.
    static let reloadMilliseconds: Int64 = 10_000

    private let store: Store
    /// The master key and its derived keys; replaced whole by a rekey.
    private var sealing: SealingKeys
    /// The keys a rekey replaced, still tried when opening (values written while it ran).
    private var previous: SealingKeys?
    private let clock: Clock
    private let algorithm: EngineConfig.SigningAlgorithm
    private let lock = Lock()
    private var signing: SigningSet

    /// The signing keys as last read: the newest current one signs; each verifies until it retires.
    private struct SigningSet {
        var active: SigningKey
        var keys: [String: (key: SigningKey, createdAt: Timestamp, retireAt: Timestamp?)]
        var loadedAt: Timestamp
    }

    /// Automatic rotation: the active key's age that makes a new one (0: never), and the last try.
    private let rotationSeconds: Int64
    private let idTokenTtlSeconds: Int64
    private var lastRotationTry = Timestamp(milliseconds: 0)
    /// When an unknown kid last made us read the store (forged kids must not make every call do so).
    private var lastMissReload = Timestamp(milliseconds: 0)

    package init(
        store: Store, masterKey: [UInt8], algorithm: EngineConfig.SigningAlgorithm, clock: Clock,
        idTokenTtlSeconds: Int64,
        rotationDays: Int64 = 0
    ) throws {
        rotationSeconds = rotationDays * 86_400
        self.idTokenTtlSeconds = idTokenTtlSeconds
        let sealing = SealingKeys(master: masterKey)
        let now = clock.now()
        self.store = store
        self.sealing = sealing
        self.clock = clock
        self.algorithm = algorithm

        let stored = try store.secrets()
        // Generate a key only when the store has no current one of its kind; two processes racing settle on one.
        func ensure(_ kind: String, _ make: () throws -> StoredSecret) throws -> [StoredSecret] {
            let existing = stored.filter { $0.kind == kind && $0.retireAt == nil }
            return existing.isEmpty ? try store.addSecretIfNoneOfKind(try make()) : existing
        }
        let codeSecrets = try ensure(Self.codeKeyKind) {
            try Self.seal(
                SecureBytes.random(count: 32), kid: "code-hmac-1", kind: Self.codeKeyKind, with: sealing, now: now)
        }
        guard let codeSecret = codeSecrets.first else {
            throw PhoneAuthError(.storageError, "The code key could not be stored.")
        }
        codeKey = SymmetricKey(data: try Self.open(codeSecret, with: sealing))
        keyedCodeHMAC = HMAC<SHA256>(key: codeKey)
        // An engine configured with an algorithm no current key has makes one, and retires the
        // others as a rotation does.
        _ = try ensure(algorithm.rawValue) {
            var secret = try Self.newSigningSecret(algorithm, with: sealing, now: now)
            secret.retireAtOfOthers = now.adding(seconds: idTokenTtlSeconds)
            return secret
        }
        signing = try Self.load(store: store, with: sealing, now: now)
    }

    private static func newSigningSecret(
        _ algorithm: EngineConfig.SigningAlgorithm, with sealing: SealingKeys, now: Timestamp
    ) throws -> StoredSecret {
        let (fresh, freshBytes) = try SigningKey.generate(algorithm)
        return try seal(freshBytes, kid: fresh.kid, kind: algorithm.rawValue, with: sealing, now: now)
    }

    /// Every signing key that has not retired; the newest current one is active.
    private static func load(store: Store, with sealing: SealingKeys, now: Timestamp) throws -> SigningSet {
        var keys: [String: (key: SigningKey, createdAt: Timestamp, retireAt: Timestamp?)] = [:]
        var active: (SigningKey, Timestamp)?
        for secret in try store.secrets() {
            guard let kind = EngineConfig.SigningAlgorithm(rawValue: secret.kind) else { continue }
            if let retireAt = secret.retireAt, retireAt <= now { continue }
            let key = try SigningKey.load(kind, privateBytes: try open(secret, with: sealing))
            keys[secret.kid] = (key, secret.createdAt, secret.retireAt)
            if secret.retireAt == nil, active.map({ secret.createdAt >= $0.1 }) ?? true {
                active = (key, secret.createdAt)
            }
        }
        guard let active else { throw PhoneAuthError(.storageError, "The store has no current signing key.") }
        return SigningSet(active: active.0, keys: keys, loadedAt: now)
    }

    /// The signing keys, read again when older than `reloadMilliseconds` or when `force`d.
    private func current(force: Bool = false) -> SigningSet {
        let now = clock.now()
        let cached = lock.withLock { signing }
        guard force || now.milliseconds - cached.loadedAt.milliseconds >= Self.reloadMilliseconds else { return cached }
        // A failed read keeps the copy we have: signing and verifying go on with it.
        guard let fresh = try? Self.load(store: store, with: lock.withLock({ sealing }), now: now) else {
            return cached
        }
        lock.withLock { signing = fresh }
        return fresh
    }

    /// The key that signs new tokens: the newest current one, replaced first when automatic
    /// rotation finds it old enough (tried at most once per reload interval).
    package var activeSigningKey: SigningKey {
        let set = current()
        guard rotationSeconds > 0, let created = set.keys[set.active.kid]?.createdAt else { return set.active }
        let now = clock.now()
        guard now.milliseconds - created.milliseconds >= rotationSeconds * 1000 else { return set.active }
        let due: Bool = lock.withLock {
            guard now.milliseconds - lastRotationTry.milliseconds >= Self.reloadMilliseconds else { return false }
            lastRotationTry = now
            return true
        }
        guard due else { return set.active }
        // Several engines may find it due at once: the store makes exactly one new key.
        _ = try? rotate(retireAfterSeconds: idTokenTtlSeconds, ifOlderThanSeconds: rotationSeconds)
        return current().active
    }

    /// The key of `kid` if it verifies now. An unknown kid may be another engine's new key: the
    /// store is read again, at most once a second for such misses.
    package func verificationKey(_ kid: String) -> SigningKey? {
        let now = clock.now()
        var set = current()
        if set.keys[kid] == nil {
            let allowed: Bool = lock.withLock {
                guard now.milliseconds - lastMissReload.milliseconds >= 1000 else { return false }
                lastMissReload = now
                return true
            }
            if allowed { set = current(force: true) }
        }
        guard let entry = set.keys[kid] else { return nil }
        if let retireAt = entry.retireAt, retireAt <= now { return nil }
        return entry.key
    }

    /// The keys the JWKS publishes: those that verify now, by kid.
    package var publishedKeys: [SigningKey] {
        let now = clock.now()
        return current().keys.values.filter { entry in entry.retireAt.map { $0 > now } ?? true }.map(\.key).sorted {
            $0.kid < $1.kid
        }
    }

    /// Adds a key that signs from now on; the others verify for `retireAfterSeconds` more (the ID
    /// tokens they signed expire by then). With `ifOlderThanSeconds`, only when the active key is
    /// at least that old (automatic rotation: engines that find it due together make one).
    @discardableResult
    package func rotate(
        algorithm: EngineConfig.SigningAlgorithm? = nil, retireAfterSeconds: Int64, ifOlderThanSeconds: Int64? = nil
    ) throws -> Bool {
        let now = clock.now()
        let secret = try Self.newSigningSecret(algorithm ?? self.algorithm, with: lock.withLock { sealing }, now: now)
        let rotated = try store.rotateSigningKey(
            secret, retireOthersAt: now.adding(seconds: retireAfterSeconds),
            ifNewestBefore: ifOlderThanSeconds.map { now.adding(seconds: -$0) })
        _ = current(force: true)
        return rotated
    }

    /// Ends a key now: tokens it signed stop verifying. The active key is replaced first.
    package func retire(kid: String, retireOthersAfterSeconds: Int64) throws -> Bool {
        if current(force: true).active.kid == kid {
            try rotate(retireAfterSeconds: retireOthersAfterSeconds)
        }
        let retired = try store.retireSigningKey(kid: kid, now: clock.now())
        _ = current(force: true)
        return retired
    }

    /// The signing keys with their times, for getStatus and listSigningKeys.
    package var signingKeyTimes: [(key: SigningKey, createdAt: Timestamp, retireAt: Timestamp?, active: Bool)] {
        let set = current()
        return set.keys.values.sorted { ($0.createdAt, $0.key.kid) < ($1.createdAt, $1.key.kid) }
            .map { ($0.key, $0.createdAt, $0.retireAt, $0.key.kid == set.active.kid) }
    }

    private static func seal(
        _ secret: [UInt8], kid: String, kind: String, with sealing: SealingKeys, now: Timestamp
    ) throws -> StoredSecret {
        StoredSecret(kid: kid, kind: kind, sealed: try sealing.sealSecret(secret, kind: kind, kid: kid), createdAt: now)
    }

    private static func open(_ secret: StoredSecret, with sealing: SealingKeys) throws -> [UInt8] {
        guard let plain = sealing.openSecret(secret.sealed, kind: secret.kind, kid: secret.kid) else {
            throw PhoneAuthError(
                .invalidConfiguration,
                "The master key does not match this database: its keys cannot be decrypted. "
                    + "Use the master key the database was created with.",
                details: [("key", .string("masterKey"))])
        }
        return plain
    }

    /// Seals every secret of the store under `newMaster` instead, in one transaction (the old key
    /// opens the store until it commits), then uses it. A value the current key cannot open stops
    /// the rekey with nothing changed. A second pass then reseals what calls in flight wrote under
    /// the old key meanwhile; until this process ends it also opens values with the old key.
    package func rekey(to newMaster: [UInt8]) throws {
        let old = lock.withLock { sealing }, new = SealingKeys(master: newMaster)
        try reseal(from: [old], to: new)
        lock.withLock { (previous, sealing) = (old, new) }
        try reseal(from: [new, old], to: new)
    }

    /// Reseals every value under `target`, opening each with the first of `sources` that can.
    private func reseal(from sources: [SealingKeys], to target: SealingKeys) throws {
        try store.reseal(
            secrets: { secret in
                guard
                    let plain = sources.lazy.compactMap({
                        $0.openSecret(secret.sealed, kind: secret.kind, kid: secret.kid)
                    }).first
                else {
                    throw Self.unopenable("a stored key")
                }
                return try target.sealSecret(plain, kind: secret.kind, kid: secret.kid)
            },
            column: { column, context, sealed in
                guard
                    let plain = sources.lazy.compactMap({
                        SealingKeys.open(sealed, key: $0.key(for: column), context: context)
                    }).first
                else {
                    throw Self.unopenable("a sealed value (\(column))")
                }
                return try SealingKeys.seal(plain, key: target.key(for: column), context: context)
            })
    }

    private static func unopenable(_ what: String) -> PhoneAuthError {
        PhoneAuthError(
            .storageError,
            "\(what.prefix(1).uppercased() + what.dropFirst()) does not open with the current master key; "
                + "nothing was rekeyed.",
            details: [("retryable", .bool(false))])
    }

    /// Opens a value sealed under a derived key: with the current master key, else the one a rekey replaced.
    private func open(_ sealed: [UInt8], _ column: SealedColumn, context: String) -> [UInt8]? {
        let (current, before) = lock.withLock { (sealing, previous) }
        return SealingKeys.open(sealed, key: current.key(for: column), context: context)
            ?? before.flatMap { SealingKeys.open(sealed, key: $0.key(for: column), context: context) }
    }

    /// HMAC of a code, bound to its verification so a hash cannot be replayed onto another one.
    /// The keyed state is made once and copied per code (keying costs two compressions).
    package func codeHash(verificationId: String, code: String) -> [UInt8] {
        // "<verificationId>:<code>" written straight into bytes, and the MAC copied out of its
        // buffer: a joined String and element-by-element copies cost more than the HMAC's own work.
        var input: [UInt8] = []
        input.reserveCapacity(verificationId.utf8.count + 1 + code.utf8.count)
        input += verificationId.utf8
        input.append(UInt8(ascii: ":"))
        input += code.utf8
        var hmac = keyedCodeHMAC
        hmac.update(data: input)
        return hmac.finalize().withUnsafeBytes { Array($0) }
    }

    package func sealBody(_ body: String, verificationId: String) throws -> [UInt8] {
        try SealingKeys.seal(Array(body.utf8), key: lock.withLock { sealing.outbox }, context: verificationId)
    }

    package func openBody(_ sealed: [UInt8], verificationId: String) -> String? {
        open(sealed, .outboxBody, context: verificationId).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A TOTP secret sealed for the store, bound to its user.
    package func sealTotpSecret(_ secret: [UInt8], uid: String) throws -> [UInt8] {
        try SealingKeys.seal(secret, key: lock.withLock { sealing.totp }, context: uid)
    }

    package func openTotpSecret(_ sealed: [UInt8], uid: String) -> [UInt8]? {
        open(sealed, .factorSecret, context: uid)
    }

    /// A refresh token's secret, sealed for its session and generation (kept only so that a
    /// retried refresh can be given the same token).
    func sealRefreshSecret(_ token: RefreshToken) throws -> [UInt8] {
        try SealingKeys.seal(
            Array(token.secret.utf8), key: lock.withLock { sealing.refresh },
            context: "\(token.sessionId)/\(token.generation)")
    }

    func openRefreshSecret(_ sealed: [UInt8], sessionId: String, generation: Int64) -> String? {
        open(sealed, .sessionSecret, context: "\(sessionId)/\(generation)").map { String(decoding: $0, as: UTF8.self) }
    }
}
