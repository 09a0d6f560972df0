import PhoneAuthCore

/// Records each operator action as a `consoleAction` line in phoneauthd's log (stdout, JSON):
/// who (the session's actor), what, on what, with what outcome, from where. Written whether or
/// not the access log is on; numbers are masked.
struct ConsoleAudit: Sendable {
    let actor: String
    let clientIp: String

    func record(_ action: String, target: String, outcome: String) {
        let line: JSONValue = .object([
            ("time", .string(SystemClock().now().rfc3339)), ("event", .string("consoleAction")),
            ("actor", .string(actor)), ("action", .string(action)), ("target", .string(target)),
            ("outcome", .string(outcome)), ("clientIp", .string(clientIp)),
        ])
        StandardStream.output.write(JSONCodec.serialize(line) + "\n")
    }

    /// The outcome's word for a call's result.
    static func outcome<T>(_ result: Result<T, ConsoleFailure>) -> String {
        if case .success = result { "done" } else { "refused" }
    }
}
