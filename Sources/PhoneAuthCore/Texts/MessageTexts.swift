/// The words a code goes out in, made when the message is sent: the pool's SMS text (WhatsApp's
/// template carries the code, but a host's sender gets the SMS text too) or the call's text.
/// Made at send time because a fallback or a resend says the same code in another channel's words.
struct MessageTexts: Sendable {
    let tenants: TenantService
    let codeTtlSeconds: Int64
    let defaultLanguage: String

    init(tenants: TenantService, config: EngineConfig) {
        self.tenants = tenants
        codeTtlSeconds = config.codeTtlSeconds
        defaultLanguage = config.defaultLanguageCode
    }

    /// The text of `message` with `code`, and its language: the closest to the one asked for
    /// among the channel's texts (WhatsApp: the tag asked for, which the provider matches to its
    /// templates). nil when its pool is gone (a tenant deleted meanwhile).
    func body(of message: OutboxMessage, code: String) -> (text: String, language: String)? {
        guard let pool = try? tenants.pool(for: Caller(tenant: message.tenant)) else { return nil }
        let asked = message.askedLanguage ?? message.languageCode
        switch message.channel {
        case .voice:
            let voice = pool.voiceText
            let language = voice.resolve(asked, fallback: voice.fallbackLanguage)
            return (voice.body(language: language, code: code), language)
        case .sms, .whatsapp:
            let text = pool.smsText.body(
                language: message.languageCode, code: code, minutes: SMSText.minutes(codeTtlSeconds))
            return (text, message.channel == .whatsapp ? SMSTemplates.canonical(asked) : message.languageCode)
        }
    }

    /// What a stored message holds: the code (sealed since channels), or, in a row queued
    /// before them, the SMS text itself, which has words as well as digits.
    static func isBareCode(_ text: String) -> Bool {
        (1...10).contains(text.utf8.count) && text.utf8.allSatisfy { (48...57).contains($0) }
    }
}
