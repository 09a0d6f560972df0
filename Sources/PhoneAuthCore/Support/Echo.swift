/// What an error may repeat of the caller's input. A name the caller sent is quoted back only
/// if it is a short identifier (`[A-Za-z][A-Za-z0-9_.-]{0,63}`): a refresh token sent as a key, a
/// code or a password is not, so a message or its details never carry what could be a secret.
package enum Echo {
    package static func isQuotable(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, bytes.count <= 64, ASCII.isLetter(first) else { return false }
        return bytes.allSatisfy { ASCII.isLetterOrDigit($0) || $0 == 95 || $0 == 46 || $0 == 45 }
    }

    /// `'text'` when it may be quoted, else `fallback`.
    package static func quoted(_ text: String, or fallback: String) -> String {
        isQuotable(text) ? "'\(text)'" : fallback
    }
}
