import PhoneAuthCore

/// The console's HTML, written as text: every value that did not come from this code goes
/// through `escape` (users' names, uids, numbers, tenants' settings), so none becomes markup.
enum HTML {
    static func escape(_ text: String) -> String { XMLText.escaped(text) }

    /// A table: its caption, header cells and rows of cells (already HTML).
    static func table(_ caption: String, headers: [String], rows: [[String]]) -> String {
        let head = headers.map { "<th scope=\"col\">\(escape($0))</th>" }.joined()
        let body = rows.map { "<tr>" + $0.map { "<td>\($0)</td>" }.joined() + "</tr>" }.joined(separator: "\n")
        return "<table><caption>\(escape(caption))</caption><thead><tr>\(head)</tr></thead>"
            + "<tbody>\(body.isEmpty ? "<tr><td colspan=\"\(headers.count)\">None.</td></tr>" : body)</tbody></table>"
    }

    /// A POST form to `action` with the session's CSRF token, hidden `fields`, visible `inputs`
    /// (already HTML) and a button.
    static func form(
        _ action: String, csrf: String, fields: [(String, String)] = [], inputs: String = "", button: String,
        danger: Bool = false
    ) -> String {
        let hidden = ([("csrf", csrf)] + fields).map {
            "<input type=\"hidden\" name=\"\(escape($0.0))\" value=\"\(escape($0.1))\">"
        }.joined()
        return "<form method=\"post\" action=\"\(escape(action))\">\(hidden)\(inputs)"
            + "<button type=\"submit\"\(danger ? " class=\"danger\"" : "")>\(escape(button))</button></form>"
    }

    /// A labelled text input.
    static func input(
        _ name: String, label: String, value: String = "", type: String = "text", required: Bool = false
    )
        -> String
    {
        "<label for=\"\(escape(name))\">\(escape(label))</label>"
            + "<input id=\"\(escape(name))\" name=\"\(escape(name))\" type=\"\(escape(type))\""
            + " value=\"\(escape(value))\"" + (required ? " required" : "") + ">"
    }

    static func link(_ href: String, _ text: String) -> String { "<a href=\"\(escape(href))\">\(escape(text))</a>" }
}
