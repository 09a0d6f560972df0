/// Keeps a failing provider out of the way: after `threshold` failures in a row it is skipped for
/// `openMilliseconds`; then one message is let through as a probe. A probe that works brings the
/// provider back; one that fails keeps it skipped for another period. With every provider down,
/// each costs one request per period, whatever the traffic.
final class CircuitBreaker: @unchecked Sendable {  // its counts and state are only touched under its lock
    enum Admission: Equatable {
        case go(probe: Bool)
        case skip(until: Timestamp)
    }

    enum Change: Equatable {
        case opened(failures: Int)
        case restored
    }

    let threshold: Int
    let openMilliseconds: Int64
    private let lock = Lock()
    private var failures = 0
    private var openUntil: Timestamp?
    private var probing = false

    /// How long a message waits when a probe is already on its way to an open provider.
    static let probeWaitMilliseconds: Int64 = 1000

    /// `threshold` 0 never opens (a host's callback: there is nowhere else to go).
    init(threshold: Int, openMilliseconds: Int64) {
        self.threshold = threshold
        self.openMilliseconds = openMilliseconds
    }

    func admit(now: Timestamp) -> Admission {
        lock.withLock {
            guard let until = openUntil else { return .go(probe: false) }
            if now < until { return .skip(until: until) }
            if probing { return .skip(until: now.adding(milliseconds: Self.probeWaitMilliseconds)) }
            probing = true
            return .go(probe: true)
        }
    }

    /// Records how a request let through by `admit` went; says when that opens or closes the breaker.
    func record(worked: Bool, probe: Bool, now: Timestamp) -> Change? {
        lock.withLock {
            if probe { probing = false }
            if worked {
                failures = 0
                guard openUntil != nil else { return nil }
                openUntil = nil
                return .restored
            }
            failures += 1
            guard threshold > 0, probe || openUntil == nil && failures >= threshold else { return nil }
            openUntil = now.adding(milliseconds: openMilliseconds)
            return .opened(failures: failures)
        }
    }
}
