import Glibc

/// The engine's purge of rows no one reads any more (verifications a day after they expire,
/// ended sessions after thirty days, spent captcha tokens, old counters). A thread of its own
/// purges when the engine starts and then every `intervalMilliseconds` of the engine's clock; the
/// store lets one engine at a time purge, so engines sharing a store do not queue behind each other.
final class RetentionPurge {
    /// Verifications are kept this long after they expire (for getVerificationStatus), then purged.
    static let retentionMilliseconds: Int64 = 24 * 3_600_000
    /// Ended sessions are kept this long (a replayed refresh token still reads "reused"), then purged.
    static let sessionRetentionMilliseconds: Int64 = 30 * 24 * 3_600_000
    static let intervalMilliseconds: Int64 = 10 * 60_000
    /// How long the thread sleeps before reading the clock again: the clock is the engine's (a
    /// test moves it by hand), so a purge falling due is noticed within this much real time.
    static let lookMilliseconds: Int64 = 500

    private let store: Store
    private let clock: Clock
    private let lock = Lock()
    private var stopping = false
    /// When this engine's last purge ran (its thread alone reads and writes it): codes made since
    /// an hour (their longest life) before it are the ones it has not erased yet.
    private var lastPurge: Timestamp?
    private var thread: pthread_t?

    init(store: Store, clock: Clock) {
        self.store = store
        self.clock = clock
    }

    func start() throws {
        thread = try BackgroundThread.start("purge") { [self] in run() }
    }

    /// Wakes the thread and waits for it: at once, or once the purge under way is written.
    func stop() {
        lock.withLock {
            stopping = true
            lock.broadcast()
        }
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    private func run() {
        var next = clock.now()
        while true {
            let now = clock.now()
            if now >= next {
                purge(at: now)
                next = now.adding(milliseconds: Self.intervalMilliseconds)
            }
            let stop = lock.withLock { () -> Bool in
                if !stopping {
                    let untilNext = next.milliseconds - clock.now().milliseconds
                    lock.wait(milliseconds: max(1, min(Self.lookMilliseconds, untilNext)))
                }
                return stopping
            }
            if stop { return }
        }
    }

    /// Purges what `now` no longer keeps. A store that refuses (busy, unreachable) is asked again
    /// at the next interval: nothing depends on the rows being gone.
    func purge(at now: Timestamp) {
        let before = now.adding(milliseconds: -Self.retentionMilliseconds)
        do {
            try store.purge(
                verificationsExpiredBefore: before,
                sessionsEndedBefore: now.adding(milliseconds: -Self.sessionRetentionMilliseconds),
                codesMadeSince: lastPurge.map { $0.adding(milliseconds: -Self.longestCodeMilliseconds) } ?? before,
                codesExpiredBefore: now)
            lastPurge = now
        } catch {}
    }

    /// `codeTtlSeconds` at most.
    static let longestCodeMilliseconds: Int64 = 3_600_000
}
