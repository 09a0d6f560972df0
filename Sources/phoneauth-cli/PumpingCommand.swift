import ArgumentParser
import PhoneAuthCore
import PhoneAuthKit

/// `phoneauth pumping`: what the SMS pumping defense refused (or, in record mode, flagged).
struct PumpingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pumping",
        abstract: "Lists the pumping defense's decisions, newest first.",
        discussion:
            "Each row is a send refused (or flagged, in record mode): the scope that tripped, the rule, "
            + "the codes sent and entered it saw against what it allows, and until when it is blocked.")
    @OptionGroup var options: EngineOptions
    @Option(help: "At most this many (1–1000).") var limit = 100

    func run() throws {
        try options.withEngine { engine in
            let page = try EventsCommand.call(
                engine, "listPumpingDecisions", .object([("maxResults", .int(Int64(limit)))]))
            if options.json { return options.printJSON(page) }
            var table = Table("TIME", "ACTION", "SCOPE", "RULE", "SENT", "ENTERED", "ALLOWED", "UNTIL", "NUMBER")
            for d in page["decisions"]?.arrayValue ?? [] {
                table.add(
                    d["time"]?.stringValue ?? "", d["action"]?.stringValue ?? "",
                    "\(d["scopeKind"]?.stringValue ?? "") \(d["scope"]?.stringValue ?? "")",
                    Self.rule(d), String(d["sent"]?.intValue ?? 0),
                    String(d["verified"]?.intValue ?? 0), String(d["allowance"]?.intValue ?? 0),
                    d["until"]?.stringValue ?? "", d["phoneNumber"]?.stringValue ?? "")
            }
            print(table.text)
        }
    }

    /// The rule, and for the provider's rating the risk against the start score it met:
    /// "tollFraudRisk 0.95>=0.9".
    static func rule(_ decision: JSONValue) -> String {
        let rule = decision["rule"]?.stringValue ?? ""
        guard let risk = decision["risk"]?.doubleValue, let start = decision["startScore"]?.doubleValue else {
            return rule
        }
        return "\(rule) \(risk)>=\(start)"
    }
}
