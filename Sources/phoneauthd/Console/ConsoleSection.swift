import PhoneAuthCore
import PhoneAuthKit

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

/// What a section answers: a page (its title and body, HTML), or after an action a redirect to
/// the page that shows its outcome (`notice`, said there).
enum ConsoleAnswer: Sendable {
    case page(title: String, body: String, status: Int = 200)
    case redirect(path: String, notice: String)
}

/// One part of the console (users, tenants, delivery, fraud, operations): what it shows, and
/// the actions its forms post. Every action is recorded (ConsoleAudit) by the section.
protocol ConsoleSection: Sendable {
    func get(_ request: ConsoleRequest) async -> ConsoleAnswer
    func post(_ request: ConsoleRequest) async -> ConsoleAnswer
}

/// The engine's JSON methods, as the console calls them (with the host's rights: the operator
/// proved an admin token to sign in).
struct ConsoleEngine: Sendable {
    let auth: PhoneAuth

    /// The method's result, or its error's message.
    func call(_ method: String, _ params: [(String, JSONValue)] = []) async -> Result<JSONValue, ConsoleFailure> {
        let (status, text) = await auth.call(method, paramsJSON: JSONCodec.serialize(.object(params)))
        let json = (try? JSONCodec.parse(text)) ?? .object([])
        guard status == 0 else {
            return .failure(ConsoleFailure(message: json["error"]?["message"]?.stringValue ?? "The call failed."))
        }
        return .success(json)
    }
}

/// An engine refusal, shown to the operator as the engine worded it (it never holds secrets).
struct ConsoleFailure: Error, Sendable {
    let message: String

    var html: String { "<p class=\"error\" role=\"alert\">\(HTML.escape(message))</p>" }
}
