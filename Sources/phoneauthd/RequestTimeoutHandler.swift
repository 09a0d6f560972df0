import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client is too slow or silent too long, so that slow clients
/// (slowloris) cannot hold connections for ever. One deadline at a time, by what the connection
/// waits for:
/// - a new connection's first request head: `header`, from the accept (a slow TLS handshake counts);
/// - on a keep-alive connection after a response, the next request's first byte: `idle`; from that
///   byte to the end of its head: `header` (RequestBytesHandler, below the decoder, reports the byte);
/// - a request's body, from the end of its head to its end: `body`;
/// - none while the server is answering: that time is the server's, not the client's.
/// Each is a deadline, not an inactivity timer: a client trickling a byte now and then is still cut.
/// On graceful shutdown (ChannelShouldQuiesceEvent) the connection also gets `shutdown` to finish.
/// It sits after the HTTP codec and before Hummingbird's HTTPConnectionStateHandler.
final class RequestTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    struct Timeouts: Sendable {
        var idle: TimeAmount
        var header: TimeAmount
        var body: TimeAmount
        var shutdown: TimeAmount
    }

    private enum Wait { case header, idle, body, server }

    private let timeouts: Timeouts
    private let observability: Observability
    private var started = false
    private var wait = Wait.header
    /// A request's head is read and its end is not.
    private var readingBody = false
    /// Requests read whose response has not ended (more than one when a client pipelines).
    private var responsesOwed = 0
    /// When the current wait ends; nil while the server answers.
    private var deadline: NIODeadline?
    /// One timer, moved only when a deadline comes before it: most requests move none (a later
    /// deadline is looked at again when the timer fires), so a request costs no scheduling.
    private var timer: Scheduled<Void>?
    private var timerAt: NIODeadline?
    private var shutdownTimer: Scheduled<Void>?

    init(timeouts: Timeouts, observability: Observability) {
        self.timeouts = timeouts
        self.observability = observability
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            readingBody = true
            responsesOwed += 1
            enter(.body, context)
        case .body:
            break
        case .end:
            readingBody = false
            enter(responsesOwed > 0 ? .server : .idle, context)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            responsesOwed = max(0, responsesOwed - 1)
            // An answer sent before its body is all in (413, 404) leaves the body's deadline running.
            if responsesOwed == 0 && !readingBody { enter(.idle, context) }
        }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is RequestBytesHandler.Arrived:
            // Ours alone: not passed on.
            if wait == .idle { enter(.header, context) }
        case is ChannelShouldQuiesceEvent:
            if shutdownTimer == nil {
                shutdownTimer = context.eventLoop.assumeIsolated().scheduleTask(in: timeouts.shutdown) {
                    self.observability.connectionCut("shutdown")
                    context.close(promise: nil)
                }
            }
            // Hummingbird's HTTPConnectionStateHandler closes the connection now if it is idle.
            context.fireUserInboundEventTriggered(event)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        enter(.header, context)
    }

    private func enter(_ next: Wait, _ context: ChannelHandlerContext) {
        wait = next
        let limit: TimeAmount
        switch next {
        case .header: limit = timeouts.header
        case .idle: limit = timeouts.idle
        case .body: limit = timeouts.body
        case .server:
            deadline = nil
            return
        }
        let due = NIODeadline.now() + limit
        deadline = due
        if let timerAt, timerAt <= due { return }
        schedule(at: due, context)
    }

    private func schedule(at due: NIODeadline, _ context: ChannelHandlerContext) {
        timer?.cancel()
        timerAt = due
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) { self.timerFired(context) }
    }

    private func timerFired(_ context: ChannelHandlerContext) {
        timer = nil
        timerAt = nil
        guard let deadline else { return }
        if deadline <= .now() {
            observability.connectionCut("\(wait)")
            // A plain close: a 408 could collide with an answer the responder is writing.
            context.close(promise: nil)
        } else {
            schedule(at: deadline, context)
        }
    }

    private func cancelTimers() {
        deadline = nil
        timer?.cancel()
        timer = nil
        timerAt = nil
        shutdownTimer?.cancel()
        shutdownTimer = nil
    }
}

@available(*, unavailable)
extension RequestTimeoutHandler: Sendable {}
