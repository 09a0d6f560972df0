/// A request as a console section sees it: signed in, and, when it posts, its CSRF token and
/// origin checked already.
struct ConsoleRequest: Sendable {
    /// The path's segments after the section's name, percent-decoded.
    let path: [String]
    let query: [(String, String)]
    /// The posted form's fields (empty for a GET).
    let form: [(String, String)]
    let session: ConsoleSessions.Session
    let audit: ConsoleAudit

    func query(_ name: String) -> String? { query.first(where: { $0.0 == name })?.1 }
    func field(_ name: String) -> String? { form.first(where: { $0.0 == name })?.1 }
}
