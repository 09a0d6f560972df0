import ArgumentParser
import PhoneAuthCore

/// `phoneauth`: the operator's command. A host of PhoneAuthCore like any other.
@main
struct PhoneAuthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phoneauth",
        abstract: "Administers PhoneAuth databases.",
        subcommands: [CopyCommand.self]
    )
}
