/// The language an SMS or a captcha page is asked in, as a BCP 47 tag (`fr-CA`, `pt_BR` is taken
/// too): 1 to 35 letters, digits, '-' or '_'. The engine picks the closest language it has.
package struct LanguageTag: Sendable, Equatable {
    package static let maxBytes = 35

    package let text: String

    package init(_ text: String, field: String = "languageCode") throws(PhoneAuthError) {
        guard Self.isWellFormed(text) else {
            throw PhoneAuthError(.invalidArgument,
                                 "The field '\(field)' must be a language tag such as \"fr-CA\" (at most \(Self.maxBytes) "
                                    + "letters, digits, '-' or '_').",
                                 details: [("field", .string(field))])
        }
        self.text = text
    }

    /// nil and "" stay nil: no language asked for.
    package init?(_ text: String?, field: String = "languageCode") throws(PhoneAuthError) {
        guard let text, !text.isEmpty else { return nil }
        try self.init(text, field: field)
    }

    package static func isWellFormed(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count <= maxBytes && bytes.allSatisfy {
            ($0 | 0x20) >= 97 && ($0 | 0x20) <= 122 || (48...57).contains($0) || $0 == 45 || $0 == 95
        }
    }
}
