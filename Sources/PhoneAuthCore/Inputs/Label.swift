/// A short text a person reads: a user's or a second factor's display name, an authenticator
/// app's account name or issuer. At most 256 bytes of UTF-8, whichever door it came through.
package struct Label: Sendable, Equatable {
    package static let maxBytes = 256

    package let text: String

    /// `field` names the parameter in the error, as the caller's door calls it.
    package init(_ text: String, field: String) throws(PhoneAuthError) {
        guard text.utf8.count <= Self.maxBytes else {
            throw PhoneAuthError(
                .invalidArgument, "The field '\(field)' must be at most \(Self.maxBytes) bytes.",
                details: [("field", .string(field))])
        }
        self.text = text
    }

    /// nil stays nil: an optional parameter.
    package init?(_ text: String?, field: String) throws(PhoneAuthError) {
        guard let text else { return nil }
        try self.init(text, field: field)
    }
}
