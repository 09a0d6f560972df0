import ArgumentParser
import PhoneAuthCore
import PhoneAuthKit

/// `phoneauth events list|drop`: the durable events still waiting for their receiver.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "Lists the events not yet delivered, or drops one.",
        subcommands: [List.self, Drop.self], defaultSubcommand: List.self)

    /// Runs one of the engine's JSON methods; its error is printed and becomes the exit status.
    static func call(_ engine: PhoneAuth, _ method: String, _ params: JSONValue) throws -> JSONValue {
        let (status, json) = engine.call(method, paramsJSON: JSONCodec.serialize(params))
        let result = (try? JSONCodec.parse(json)) ?? .null
        guard status == 0 else {
            throw Failure(
                message: "\(result["code"]?.stringValue ?? "error"): \(result["message"]?.stringValue ?? json)",
                exitCode: ExitCodes.refused)
        }
        return result
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lists undelivered events, each user's in the order they will go (never their contents).")
        @OptionGroup var options: EngineOptions
        @Option(help: "At most this many (1–1000).") var limit = 100

        func run() throws {
            try options.withEngine { engine in
                let page = try EventsCommand.call(
                    engine, "listPendingEvents", .object([("maxResults", .int(Int64(limit)))]))
                if options.json { return options.printJSON(page) }
                var table = Table("ID", "TYPE", "SUBJECT", "ATTEMPTS", "NEXT TRY", "LAST ERROR")
                for e in page["events"]?.arrayValue ?? [] {
                    table.add(
                        e["id"]?.stringValue ?? "", e["type"]?.stringValue ?? "", e["subject"]?.stringValue ?? "",
                        String(e["attempts"]?.intValue ?? 0), e["dueAt"]?.stringValue ?? "",
                        e["lastError"]?.stringValue ?? "-")
                }
                print(table.text)
            }
        }
    }

    struct Drop: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Deletes an undelivered event without delivering it.",
            discussion:
                "For an event its receiver will never take: it holds back that user's later events. "
                + "The receiver never learns of it.")
        @OptionGroup var options: EngineOptions
        @Argument(help: "The event's id (see events list).") var eventId: String

        func run() throws {
            try options.withEngine { engine in
                _ = try EventsCommand.call(engine, "dropPendingEvent", .object([("eventId", .string(eventId))]))
                if options.json { return options.printJSON(.object([("dropped", .string(eventId))])) }
                print("\(eventId) is dropped.")
            }
        }
    }
}
