import Glibc

/// The connections of one store: at most `size`, opened when needed, each used by one thread at
/// a time. Broken connections are dropped on their way back, so a store recovers by itself once
/// its database is reachable again.
final class ConnectionPool<Connection: SQLConnection>: @unchecked Sendable {
    struct Statistics {
        var size: Int
        var transactions = 0
        var retries = 0
        var roundTrips = 0
    }

    private let lock = Lock()
    private var idle: [Connection]
    private var opened: Int
    private var closed = false
    private var statistics: Statistics
    private let connect: () throws -> Connection

    /// `first` is an already open connection (the one that ran the migrations).
    init(size: Int, first: Connection, connect: @escaping () throws -> Connection) {
        idle = [first]
        opened = 1
        statistics = Statistics(size: size)
        self.connect = connect
    }

    var size: Int { statistics.size }

    /// Runs `body` with a connection of its own, waiting for one if all are in use.
    func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    private func checkOut() throws -> Connection {
        let reuse: Connection? = try lock.withLock { () throws -> Connection? in
            while true {
                guard !closed else { throw PhoneAuthError(.storageError, "The engine is closed.") }
                if let connection = idle.popLast() { return connection }
                if opened < statistics.size {
                    opened += 1
                    return nil
                }
                lock.wait(milliseconds: 1000)
            }
        }
        if let reuse { return reuse }
        do {
            return try connect()
        } catch {
            lock.withLock { opened -= 1; lock.broadcast() }
            throw error
        }
    }

    private func checkIn(_ connection: Connection) {
        let drop = lock.withLock { () -> Bool in
            statistics.roundTrips += connection.roundTrips
            connection.roundTrips = 0
            let drop = closed || !connection.isHealthy
            if drop { opened -= 1 } else { idle.append(connection) }
            lock.broadcast()
            return drop
        }
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
