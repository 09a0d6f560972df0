import ArgumentParser
import PhoneAuthCore

/// `phoneauth`: the operator's command. It opens and calls engines through PhoneAuthKit, the Swift
/// API; only `copy` works on the stores below the engine.
@main
struct PhoneAuthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phoneauth",
        abstract:
            "Administers PhoneAuth: users, tenants, lockouts, import and export, status, copies between databases.",
        discussion:
            "Each command opens the engine from --config FILE (or $PHONEAUTH_CONFIG), the JSON phoneauth_open takes. "
            + "Exit status: 0 done, 1 refused (the message says why), 2 no such user or tenant, 3 the configuration or "
            + "database cannot be opened, 64 a usage error.",
        subcommands: [
            UsersCommand.self, TenantsCommand.self, UnlockCommand.self, KeysCommand.self, ExportCommand.self,
            ImportCommand.self,
            StatusCommand.self, EventsCommand.self, PumpingCommand.self,
            CopyCommand.self,
        ]
    )
}
