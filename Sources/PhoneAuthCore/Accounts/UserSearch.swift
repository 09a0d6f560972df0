/// What `searchUsers` looks for: a query that is a phone number finds that number; any other
/// finds the user whose uid it is and the users whose display names start with it, ignoring
/// ASCII case.
package enum UserSearch: Sendable, Equatable {
    /// An E.164 number.
    case phoneNumber(String)
    /// A uid, and the start of display names: `nameFrom` (the query ASCII-lowercased) up to
    /// `nameBefore` (its successor, nil when no string follows every one it starts).
    case uidOrName(uid: String, nameFrom: String, nameBefore: String?)

    static let maxQueryBytes = 128

    /// Reads a query: empty or over 128 bytes is `invalidArgument` naming `query`.
    init(_ query: String?) throws(PhoneAuthError) {
        guard let query, !query.isEmpty, query.utf8.count <= Self.maxQueryBytes else {
            throw PhoneAuthError(
                .invalidArgument, "The field 'query' must be 1 to \(Self.maxQueryBytes) bytes.",
                details: [("field", .string("query"))])
        }
        if let phone = try? PhoneNumber.parse(query) {
            self = .phoneNumber(phone.e164)
            return
        }
        let lowered = Self.asciiLowercased(query)
        self = .uidOrName(uid: query, nameFrom: lowered, nameBefore: Self.successor(of: lowered))
    }

    /// A prefix as a range instead of LIKE: both stores compare text bytewise here (SQLite's
    /// BINARY, PostgreSQL's "C" columns), and UTF-8's byte order is its code points' order, so
    /// the names that start with `prefix` are exactly those from it up to this string (its last
    /// code point raised by one; a last U+10FFFF is dropped and the one before raised). The range
    /// reads an index on both stores, and no character of the query is a wildcard.
    static func successor(of prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            guard last.value < 0x10FFFF else { continue }
            // The surrogates are no scalars: after U+D7FF comes U+E000.
            let next = last.value == 0xD7FF ? 0xE000 : last.value + 1
            guard let raised = Unicode.Scalar(next) else { continue }
            scalars.append(raised)
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            return text
        }
        return nil
    }

    /// A-Z lowered and nothing else, as SQLite's lower() and PostgreSQL's on a "C" column do.
    static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
