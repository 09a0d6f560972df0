import PhoneAuthCore

/// `server.console`: the operator's console phoneauthd serves at /console, off unless the key is
/// given. Operators sign in with one of `server.adminTokens`, exchanged for a session cookie that
/// lasts `sessionMinutes` (30).
struct ConsoleSettings: Sendable {
    var sessionMinutes: Int64 = 30

    static func read(_ r: ObjectReader) throws -> ConsoleSettings {
        try r.rejectUnknown(["sessionMinutes"])
        var settings = ConsoleSettings()
        settings.sessionMinutes = try r.int("sessionMinutes", in: 5...720) ?? settings.sessionMinutes
        return settings
    }
}
