import PhoneAuthCore

/// How the console shows the engine's JSON: any object as a definition list, numbers masked
/// until the operator asks, times as the engine wrote them.
enum ConsoleFormat {
    /// An object as `<dl>` (nested objects nested, arrays of scalars as a list), every value
    /// escaped; a scalar as its text.
    static func definitions(_ value: JSONValue) -> String {
        switch value {
        case let .object(pairs):
            guard !pairs.isEmpty else { return "<p>None.</p>" }
            return "<dl>" + pairs.map { "<dt>\(HTML.escape($0.0))</dt><dd>\(definitions($0.1))</dd>" }.joined()
                + "</dl>"
        case let .array(items):
            guard !items.isEmpty else { return "none" }
            return "<ul>" + items.map { "<li>\(definitions($0))</li>" }.joined() + "</ul>"
        default: return HTML.escape(text(value))
        }
    }

    /// A scalar as text (JSON's own spelling for null and booleans).
    static func text(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: "—"
        case let .string(s)?: s
        case let .bool(b)?: b ? "yes" : "no"
        case let .int(i)?: String(i)
        case let value?: JSONCodec.serialize(value)
        }
    }

    /// A phone number masked (`+*******3434`) unless `reveal`.
    static func phone(_ number: String?, reveal: Bool) -> String {
        guard let number else { return "—" }
        return HTML.escape(reveal ? number : PhoneNumber.mask(number))
    }

    /// `tenantId` for the engine's methods, when the page works in a tenant.
    static func tenant(_ id: String?) -> [(String, JSONValue)] {
        id.map { $0.isEmpty ? [] : [("tenantId", .string($0))] } ?? []
    }
}
