import NIOCore

/// Sits below the HTTP decoder (and above TLS) and tells RequestTimeoutHandler when request bytes
/// arrive: the decoder says nothing until a whole head is parsed, and the header timeout of a
/// keep-alive connection starts at the next request's first byte, not at its end.
final class RequestBytesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The user event fired before the bytes go on to the decoder.
    struct Arrived: Sendable {}

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if unwrapInboundIn(data).readableBytes > 0 {
            context.fireUserInboundEventTriggered(Arrived())
        }
        context.fireChannelRead(data)
    }
}
