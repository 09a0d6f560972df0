/// How a code travels to the number: a text message, a WhatsApp authentication message, or a
/// voice call that says it.
package enum Channel: String, Sendable, CaseIterable, Comparable {
    case sms, whatsapp, voice

    /// `field`'s value as a channel; nil and "" are nil (the configuration's preference decides).
    package static func parse(_ text: String?, field: String = "channel") throws(PhoneAuthError) -> Channel? {
        guard let text, !text.isEmpty else { return nil }
        guard let channel = Channel(rawValue: text) else {
            throw PhoneAuthError(
                .invalidArgument, "The field '\(field)' must be one of sms, whatsapp, voice.",
                details: [("field", .string(field))])
        }
        return channel
    }

    package static func < (a: Channel, b: Channel) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
