/// The words a code goes out in, made when the message is sent: the pool's SMS text (WhatsApp's
/// template carries the code, but a host's sender gets the SMS text too) or the call's text.
/// Made at send time because a fallback or a resend says the same code in another channel's words.
struct MessageTexts: Sendable {
    let tenants: TenantService
    let codeTtlSeconds: Int64
    /// A call's text in the language asked for (resolved among the voice texts): language, code.
    let voice: @Sendable (String, String) -> String

    /// The text of `message` with `code`; nil when its pool is gone (a tenant deleted meanwhile).
    func body(of message: OutboxMessage, code: String) -> String? {
        switch message.channel {
        case .voice:
            return voice(message.languageCode, code)
        case .sms, .whatsapp:
            guard let pool = try? tenants.pool(message.tenant) else { return nil }
            return pool.smsText.body(
                language: message.languageCode, code: code, minutes: SMSText.minutes(codeTtlSeconds))
        }
    }

    /// What a stored message holds: the code (sealed since channels), or, in a row queued
    /// before them, the SMS text itself, which has words as well as digits.
    static func isBareCode(_ text: String) -> Bool {
        (1...10).contains(text.utf8.count) && text.utf8.allSatisfy { (48...57).contains($0) }
    }
}
