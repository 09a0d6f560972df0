import Glibc

/// The connections of one store: at most `size`, opened when needed, each used by one thread at
/// a time. Broken connections are dropped on their way back, so a store recovers by itself once
/// its database is reachable again.
// @unchecked: its idle connections and counters are only touched under `lock`.
final class ConnectionPool<Connection: SQLConnection>: @unchecked Sendable {
    struct Statistics {
        var size: Int
        var transactions = 0
        var retries = 0
        var roundTrips = 0
        /// Microseconds connections spent checked out, summed over them: with one connection
        /// (SQLite), the share of the time the store was busy, which bounds what more threads gain.
        var busyMicroseconds: Int64 = 0
        /// Check-outs that found every connection in use.
        var waits = 0
    }

    private let lock = Lock()
    private var idle: [Connection]
    private var opened: Int
    private var closed = false
    private var statistics: Statistics
    private let connect: () throws -> Connection
    private let waitLimitMilliseconds: Int64?

    /// `first` is an already open connection (the one that ran the migrations). A caller waits
    /// at most `waitLimitMilliseconds` (nil: as long as it takes) for a connection to be free.
    init(size: Int, first: Connection, waitLimitMilliseconds: Int64? = nil, connect: @escaping () throws -> Connection)
    {
        idle = [first]
        opened = 1
        statistics = Statistics(size: size)
        self.waitLimitMilliseconds = waitLimitMilliseconds
        self.connect = connect
    }

    var size: Int { statistics.size }

    /// Runs `body` with a connection of its own, waiting for one if all are in use.
    func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try checkOut()
        let start = monotonicMicroseconds()
        defer { checkIn(connection, heldFor: monotonicMicroseconds() - start) }
        return try body(connection)
    }

    /// How often a caller yields the processor, while every connection is in use, before it sleeps
    /// on the condition: one is usually back within a transaction's few tens of microseconds, and
    /// sleeping then being woken costs two context switches and leaves a processor idle meanwhile.
    static var yieldsBeforeWaiting: Int { 50 }

    private func checkOut() throws -> Connection {
        var waited = false
        for _ in 0..<Self.yieldsBeforeWaiting {
            let free = lock.withLock { () -> Bool in
                let free = closed || !idle.isEmpty || opened < statistics.size
                if !free && !waited { statistics.waits += 1 }
                return free
            }
            if free { break }
            waited = true
            sched_yield()
        }
        let deadline = waitLimitMilliseconds.map { monotonicMilliseconds() + $0 }
        let reuse: Connection? = try lock.withLock { () throws -> Connection? in
            while true {
                guard !closed else { throw PhoneAuthError(.storageError, "The engine is closed.") }
                if let connection = idle.popLast() { return connection }
                if opened < statistics.size {
                    opened += 1
                    return nil
                }
                // Taken again between the look above and this one: a wait all the same.
                if !waited { statistics.waits += 1 }
                waited = true
                let left = deadline.map { $0 - monotonicMilliseconds() } ?? 1000
                guard left > 0 else {
                    throw StorageFailure(
                        .unavailable,
                        "All \(statistics.size) database connections stayed busy for \(waitLimitMilliseconds ?? 0) ms.")
                }
                lock.wait(milliseconds: min(left, 1000))
            }
        }
        if let reuse { return reuse }
        do {
            return try connect()
        } catch {
            lock.withLock {
                opened -= 1; lock.broadcast()
            }
            throw error
        }
    }

    private func checkIn(_ connection: Connection, heldFor microseconds: Int64) {
        let drop = lock.withLock { () -> Bool in
            statistics.busyMicroseconds += microseconds
            statistics.roundTrips += connection.roundTrips
            connection.roundTrips = 0
            let drop = closed || !connection.isHealthy
            if drop { opened -= 1 } else { idle.append(connection) }
            return drop
        }
        // One connection came back: one waiter can have it. Woken after the lock is released, so
        // it does not wake only to wait for the lock.
        lock.signal()
        if drop { connection.close() }
    }

    func count(transactions: Int = 0, retries: Int = 0) {
        lock.withLock {
            statistics.transactions += transactions
            statistics.retries += retries
        }
    }

    var currentStatistics: Statistics { lock.withLock { statistics } }

    /// Closes the idle connections now and the others as they come back.
    func close() {
        let toClose = lock.withLock { () -> [Connection] in
            closed = true
            opened -= idle.count
            defer { idle.removeAll() }
            lock.broadcast()
            return idle
        }
        for connection in toClose { connection.close() }
    }
}

/// Milliseconds of a clock that only moves forward, for deadlines.
func monotonicMilliseconds() -> Int64 { monotonicMicroseconds() / 1000 }

/// Microseconds of a clock that only moves forward.
func monotonicMicroseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}
