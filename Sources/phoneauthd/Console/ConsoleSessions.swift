import Crypto
import PhoneAuthCore

/// The console's signed-in operators, in this process's memory (a restart signs them out): each
/// session an unguessable ID (the cookie), its CSRF token (every form's hidden field), who it is
/// (the admin token's fingerprint, never the token) and when it ends.
final class ConsoleSessions: @unchecked Sendable {  // `sessions` is only touched under `lock`
    struct Session: Sendable {
        let id: String
        let csrf: String
        /// `admin:` and the first 8 hex digits of the admin token's SHA-256: names the token in
        /// the audit log without telling it.
        let actor: String
        let endsAt: ContinuousClock.Instant
    }

    /// At most this many live sessions; the oldest goes first.
    static let capacity = 256
    private let lifetime: Duration
    private let lock = Lock()
    private var sessions: [String: Session] = [:]
    /// Wrong tokens per client address in the current window: at most `maxFailures` a window.
    private var failures: [String: (count: Int, since: ContinuousClock.Instant)] = [:]
    static let maxFailures = 10
    static let failureWindow = Duration.seconds(15 * 60)

    init(settings: ConsoleSettings) { lifetime = .seconds(settings.sessionMinutes * 60) }

    func open(token: String) -> Session {
        let digest = SHA256.hash(data: Array(token.utf8)).prefix(4).map { String($0, radix: 16) }
        let actor = "admin:" + digest.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        let session = Session(
            id: Base64URL.encode(SecureBytes.random(count: 32)), csrf: Base64URL.encode(SecureBytes.random(count: 32)),
            actor: actor, endsAt: .now + lifetime)
        lock.withLock {
            sessions = sessions.filter { $0.value.endsAt > .now }
            if sessions.count >= Self.capacity, let oldest = sessions.min(by: { $0.value.endsAt < $1.value.endsAt }) {
                sessions[oldest.key] = nil
            }
            sessions[session.id] = session
        }
        return session
    }

    /// The live session of the cookie `id`, if there is one.
    func session(_ id: String?) -> Session? {
        guard let id else { return nil }
        return lock.withLock {
            guard let found = sessions[id], found.endsAt > .now else { return nil }
            return found
        }
    }

    func close(_ id: String) { lock.withLock { sessions[id] = nil } }

    /// Whether `clientIp` may try a token: fewer than `maxFailures` wrong ones in the window.
    func maySignIn(from clientIp: String) -> Bool {
        lock.withLock {
            guard let seen = failures[clientIp], seen.since + Self.failureWindow > .now else { return true }
            return seen.count < Self.maxFailures
        }
    }

    /// Counts a wrong token from `clientIp`; true for the window's first failures (those worth a log
    /// line), false once the address is throttled.
    func failedSignIn(from clientIp: String) -> Bool {
        lock.withLock {
            if failures.count >= Self.capacity * 4 {
                failures = failures.filter { $0.value.since + Self.failureWindow > .now }
            }
            var seen = failures[clientIp].flatMap { $0.since + Self.failureWindow > .now ? $0 : nil } ?? (0, .now)
            seen.count += 1
            failures[clientIp] = seen
            return seen.count <= Self.maxFailures
        }
    }
}
