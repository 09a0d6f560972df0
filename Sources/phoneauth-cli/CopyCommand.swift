import ArgumentParser
import Glibc
import PhoneAuthCore

/// `phoneauth copy`: moves a deployment to another database (typically SQLite to PostgreSQL).
struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copies every user, session, verification in flight, key and counter into an empty database.",
        discussion: """
            Each database is a SQLite file's path or a postgresql:// URI. The keys are copied sealed: engines \
            on the target must use the source's master key (for a SQLite deployment without PHONEAUTH_MASTER_KEY, \
            the key file beside the database, <database>.key).
            """
    )

    @Option(help: "The database to copy from.") var from: String
    @Option(help: "The database to copy into; its schema must hold no rows.") var to: String
    @Option(help: "The PostgreSQL schema of --from.") var fromSchema = "phoneauth"
    @Option(help: "The PostgreSQL schema of --to.") var toSchema = "phoneauth"

    func run() throws {
        let source = try database(from, schema: fromSchema, option: "--from")
        let target = try database(to, schema: toSchema, option: "--to")
        if case let .sqlite(path, _) = source, access(path, F_OK) != 0 {
            throw ValidationError("--from: there is no database file at \(path).")
        }
        let copied: [(table: String, rows: Int)]
        do {
            copied = try StoreCopy.copy(from: source, to: target)
        } catch let error as PhoneAuthError {
            StandardStream.error.write("phoneauth copy: \(error.message)\n")
            throw ExitCode.failure
        }
        print("Copied from \(describe(source)) to \(describe(target)):")
        for (table, rows) in copied { print("  \(table): \(rows) rows") }
        if case let .sqlite(path, _) = source, getenv(MasterKey.environmentVariable) == nil {
            print(
                "Engines on the target need the source's master key: the key file \(path).key "
                    + "(give it as masterKey or \(MasterKey.environmentVariable))."
            )
        }
    }

    private func describe(_ database: Database) -> String {
        if case let .postgres(settings) = database { return "\(settings.location) (schema \(settings.schema))" }
        return database.location
    }

    private func database(_ text: String, schema: String, option: String) throws -> Database {
        guard PostgresSettings.isValidSchema(schema) else {
            throw ValidationError(
                "\(option)-schema must be lower-case letters, digits and _, not starting with a digit.")
        }
        var config = EngineConfig(database: text)
        config.postgres.schema = schema
        // Whole tables are read and written in one statement each: give them time.
        config.postgres.statementTimeoutMs = 600_000
        return Database(config)
    }
}
