import Glibc

/// Where the engine reads the time, so tests can move it.
package protocol Clock: Sendable {
    func now() -> Timestamp
}

package struct SystemClock: Clock {
    package init() {}
    package func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(milliseconds: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
    }
}

/// A clock that stands still until told to move.
package final class ManualClock: Clock, @unchecked Sendable {  // the time is only read and moved under its lock
    private let lock = Lock()
    private var current: Timestamp

    package init(_ start: Timestamp = Timestamp(seconds: 1_800_000_000)) { current = start }

    package func now() -> Timestamp { lock.withLock { current } }

    package func advance(seconds: Int64) { lock.withLock { current = current.adding(seconds: seconds) } }

    package func advance(milliseconds: Int64) { lock.withLock { current = current.adding(milliseconds: milliseconds) } }
}
