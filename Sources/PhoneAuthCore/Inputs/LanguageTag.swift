/// The language an SMS or a captcha page is asked in: a BCP 47 tag (`fr-CA`; `fr_ca` and an
/// Accept-Language value such as `fr-CA,fr;q=0.9` are taken too). The engine picks the closest
/// language it has and falls back to the default, so any text of at most 255 bytes is one.
package struct LanguageTag: Sendable, Equatable {
    package static let maxBytes = 255

    package let text: String

    package init(_ text: String, field: String = "languageCode") throws(PhoneAuthError) {
        guard text.utf8.count <= Self.maxBytes else {
            throw PhoneAuthError(
                .invalidArgument, "The field '\(field)' must be at most \(Self.maxBytes) bytes.",
                details: [("field", .string(field))])
        }
        self.text = text
    }

    /// nil and "" stay nil: no language asked for.
    package init?(_ text: String?, field: String = "languageCode") throws(PhoneAuthError) {
        guard let text, !text.isEmpty else { return nil }
        try self.init(text, field: field)
    }
}
