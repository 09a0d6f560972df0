import ArgumentParser
import PhoneAuthCore
import PhoneAuthKit

/// `phoneauth status`: what the engine's store holds and has done in the last hour.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Shows the schema version, users, sessions, recent SMS and signing keys.")
    @OptionGroup var options: EngineOptions

    func run() throws {
        try options.withEngine { engine in
            let s = try options.call(engine, "getStatus")
            if options.json { return options.printJSON(s) }
            let text = UsersCommand.text
            print("""
                schema version   \(text(s["schemaVersion"]))
                users            \(text(s["users"]))
                live sessions    \(text(s["liveSessions"]))
                SMS queued       \(text(s["sms"]?["queued"]))
                SMS last hour    \(text(s["sms"]?["sentLastHour"])) sent, \(text(s["sms"]?["failedLastHour"])) failed
                """)
            print("")
            KeysCommand.show(.object([("keys", s["signingKeys"] ?? .array([]))]), options)
        }
    }
}
