/// A sent message that no receipt confirmed within `channels.fallback.afterSeconds`: its
/// verification falls back to another channel, and deliveryFailed (`reason` `noReceipt`) tells of it.
package struct UnconfirmedDelivery: Sendable {
    /// The message as it was sent.
    package let message: OutboxMessage
    /// Who took it, and its ID there.
    package let provider: String?
    package let messageId: String?
    /// The channel the same code goes by now; nil when a limit refused the fallback.
    package let fallback: Channel?
}
