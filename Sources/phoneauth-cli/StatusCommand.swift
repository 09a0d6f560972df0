import ArgumentParser
import PhoneAuthCore
import PhoneAuthKit

/// `phoneauth status`: what the engine's store holds and has done in the last hour.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Shows the schema version, users, sessions, recent SMS and signing keys.")
    @OptionGroup var options: EngineOptions

    func run() throws {
        try options.withEngine { engine in
            let s = try options.typed { () throws(PhoneAuthKit.PhoneAuthError) in try engine.status() }
            if options.json { return options.printJSON((try? JSONCodec.parse(s.json)) ?? .null) }
            print(
                """
                schema version   \(s.schemaVersion)
                users            \(s.users)
                live sessions    \(s.liveSessions)
                SMS queued       \(s.smsQueued)
                SMS last hour    \(s.smsSentLastHour) sent, \(s.smsFailedLastHour) failed
                events pending   \(s.eventsPending)
                """)
            print("")
            KeysCommand.show(s.signingKeys, options)
        }
    }
}
