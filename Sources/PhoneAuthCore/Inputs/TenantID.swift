/// Which user pool an operation is for: a tenant's ID, or the default pool (no `tenantId`, or an
/// empty one). IDs are 1 to 64 letters, digits and hyphens, starting with a letter or digit, so
/// they stay safe in URL paths (`/tenants/{t}/`), tokens and logs.
package struct TenantID: Sendable, Hashable, CustomStringConvertible {
    package static let maxLength = 64
    /// The pool of every host that names no tenant (stored as '').
    package static let defaultPool = TenantID(unchecked: "")

    /// '' for the default pool.
    package let text: String

    package var isDefault: Bool { text.isEmpty }
    /// The ID where a tenant is named (users, tokens, events, hooks); nil for the default pool,
    /// which is named by leaving it out.
    package var named: String? { isDefault ? nil : text }
    package var description: String { isDefault ? "the default pool" : "tenant \(text)" }

    /// `field` names the parameter in the error, as the caller's door calls it.
    package init(_ text: String?, field: String = "tenantId") throws(PhoneAuthError) {
        guard let text, !text.isEmpty else {
            self = .defaultPool
            return
        }
        guard Self.isWellFormed(text) else {
            throw PhoneAuthError(
                .invalidArgument,
                "The field '\(field)' must be 1 to \(Self.maxLength) letters, digits and hyphens, "
                    + "starting with a letter or digit.",
                details: [("field", .string(field)), ("reason", .string("invalidTenantId"))])
        }
        self.text = text
    }

    /// A tenant as the store keeps it (already checked when it was written).
    package init(unchecked text: String) { self.text = text }

    package static func isWellFormed(_ text: String) -> Bool {
        let bytes = text.utf8
        guard let first = bytes.first, bytes.count <= maxLength, ASCII.isLetterOrDigit(first) else { return false }
        return bytes.allSatisfy { ASCII.isLetterOrDigit($0) || $0 == UInt8(ascii: "-") }
    }

    /// The ID a tenant gets when its creator names none: its display name in lower case, a
    /// hyphen and five random letters or digits (as Identity Platform's `name-abcde`).
    static func generate(displayName: String) -> TenantID {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let stem = String(
            decoding: displayName.utf8.prefix(maxLength - 6).map { ASCII.isLetter($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        var suffix = ""
        for byte in SecureBytes.random(count: 5) {
            // 36 does not divide 256: the slight bias toward the first letters is harmless here
            // (an ID is a name, not a secret; uniqueness is the store's to enforce).
            suffix.append(Character(UnicodeScalar(alphabet[Int(byte) % alphabet.count])))
        }
        return TenantID(unchecked: stem + "-" + suffix)
    }
}
