import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP1Channel with phoneauthd's deadlines on slow and idle clients: a
/// RequestBytesHandler ahead of the HTTP decoder (after TLS, when HummingbirdTLS wraps this
/// channel), a RequestTimeoutHandler after it. HTTP1Channel's own idleTimeout is left off: it is
/// an inactivity timer, which a client trickling a byte now and then never trips. A
/// ConnectionCap.Handler counts the connection, or closes it when past the cap.
struct TimedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let cap: ConnectionCap

    init(
        responder: @escaping HTTPChannelHandler.Responder, timeouts: RequestTimeoutHandler.Timeouts,
        cap: ConnectionCap
    ) {
        self.cap = cap
        base = HTTP1Channel(
            responder: responder,
            configuration: .init(additionalChannelHandlers: [
                RequestTimeoutHandler(timeouts: timeouts, observability: cap.observability)
            ]))
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandlers(ConnectionCap.Handler(cap: cap), RequestBytesHandler())
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
