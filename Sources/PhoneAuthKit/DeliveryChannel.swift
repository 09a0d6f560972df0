import PhoneAuthCore

/// How a code travels: an SMS, a WhatsApp authentication message, or a voice call that says it.
/// Without one, the configuration's `channels.preferred` chooses by the number's region.
public enum DeliveryChannel: String, Sendable, Hashable, CaseIterable {
    /// A text message.
    case sms
    /// A WhatsApp authentication template, the code as its parameter and its copy-code button's.
    case whatsapp
    /// A call that says the code digit by digit, twice.
    case voice

    var core: Channel { Channel(rawValue: rawValue)! }

    init(_ channel: Channel) { self.init(rawValue: channel.rawValue)! }
}
