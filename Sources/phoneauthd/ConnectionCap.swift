import NIOCore
import Synchronization

/// The exact count behind server.maxConnections. Hummingbird's MaximumAvailableConnections stops
/// reading the listener at the cap, so newcomers wait in the kernel's backlog; but one read accepts
/// up to 4 connections before it looks again, and TimedHTTP1Channel closes those past the cap here.
final class ConnectionCap: Sendable {
    let limit: Int
    private let open = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts the channel until it closes; false, counting nothing, when the cap is reached.
    func admit(_ channel: any Channel) -> Bool {
        var current = open.load(ordering: .relaxed)
        while current < limit {
            let (done, seen) = open.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if done {
                channel.closeFuture.whenComplete { _ in self.open.subtract(1, ordering: .relaxed) }
                return true
            }
            current = seen
        }
        return false
    }
}
