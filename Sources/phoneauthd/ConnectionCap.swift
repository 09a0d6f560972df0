import NIOCore
import Synchronization

/// The exact count behind server.maxConnections. Hummingbird's MaximumAvailableConnections stops
/// reading the listener at the cap, so newcomers wait in the kernel's backlog; but one read accepts
/// up to 4 connections before it looks again, and those past the cap are closed at once here.
final class ConnectionCap: Sendable {
    let limit: Int
    let observability: Observability
    private let open = Atomic<Int>(0)

    init(limit: Int, observability: Observability) {
        self.limit = limit
        self.observability = observability
    }

    /// Counts one more connection; false, counting nothing, when the cap is reached.
    func admit() -> Bool {
        var current = open.load(ordering: .relaxed)
        while current < limit {
            let (done, seen) = open.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if done {
                observability.connectionOpened()
                return true
            }
            current = seen
        }
        observability.connectionCut("cap")
        return false
    }

    func release() {
        open.subtract(1, ordering: .relaxed)
        observability.connectionClosed()
    }

    /// Counts its channel while it is active. Released in channelInactive, which NIO calls before
    /// any closeFuture callback: Hummingbird releases its own count in one, so when it accepts the
    /// next connection this count has always been released first.
    final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny

        private let cap: ConnectionCap
        private var counted = false
        private var seenActive = false

        init(cap: ConnectionCap) {
            self.cap = cap
        }

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { becameActive(context) }
        }

        func channelActive(context: ChannelHandlerContext) {
            becameActive(context)
            context.fireChannelActive()
        }

        func channelInactive(context: ChannelHandlerContext) {
            if counted {
                counted = false
                cap.release()
            }
            context.fireChannelInactive()
        }

        private func becameActive(_ context: ChannelHandlerContext) {
            guard !seenActive else { return }
            seenActive = true
            if cap.admit() {
                counted = true
            } else {
                // Not from inside the pipeline's setup: closing there would fail it.
                context.eventLoop.assumeIsolated().execute { context.close(promise: nil) }
            }
        }
    }
}

@available(*, unavailable)
extension ConnectionCap.Handler: Sendable {}
