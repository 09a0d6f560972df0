import ArgumentParser
import Glibc
import PhoneAuthCore
import PhoneAuthKit

/// `phoneauth export FILE`: every user, in the JSON of Firebase's `auth:export`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Writes every user to FILE in Firebase's auth:export JSON.",
        discussion:
            "The file holds whole phone numbers (it is data, not a display): keep it as safe as the database. "
            + "With --tenant, the tenant's users, each naming it (tenantId): the file imports into that tenant only.")
    @OptionGroup var options: EngineOptions
    @OptionGroup var scope: TenantOption
    @Argument(help: "The file to write (replaced whole when done).") var file: String

    func run() throws {
        try options.withEngine { opened in
            let engine = try scope.scoped(opened, options)
            let progress = Progress(verb: "exported")
            // Each user is already the JSON text of an object: the file is written around them.
            var users: [String] = [], token: String?
            repeat {
                let page = try options.typed { () throws(PhoneAuthKit.PhoneAuthError) in
                    try engine.exportUsers(maxResults: 1000, pageToken: token)
                }
                users += page.usersJSON
                token = page.nextPageToken
                progress.show(users.count)
            } while token != nil
            progress.finish()
            try JSONFile.write("{\"users\":[" + users.joined(separator: ",") + "]}", to: file)
            if options.json { return options.printJSON(.object([("exported", .int(Int64(users.count)))])) }
            print("\(users.count) users written to \(file).")
        }
    }
}

/// `phoneauth import FILE`: users from Firebase's `auth:export` JSON (or PhoneAuth's export).
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Imports the users of FILE (Firebase's auth:export JSON).",
        discussion:
            "Users that cannot be imported are listed by their index in the file; the others are. "
            + "Importing a file again changes nothing. Exit status 1 when any user was not imported. "
            + "Users go into the default pool, or with --tenant into that tenant; a user that names another "
            + "tenant (its tenantId, as export --tenant writes it) is not imported. A uid is unique across tenants."
    )
    @OptionGroup var options: EngineOptions
    @OptionGroup var scope: TenantOption
    @Argument(help: "The file to read.") var file: String

    func run() throws {
        try reporting {
            guard case let .array(users)? = try JSONFile.read(file)["users"] else {
                throw Failure(message: "\(file) has no \"users\" array.", exitCode: ExitCodes.refused)
            }
            let opened = try options.open()
            defer { opened.close() }
            let engine = try scope.scoped(opened, options)
            let progress = Progress(verb: "imported")
            var imported: Int64 = 0, errors: [JSONValue] = []
            for start in stride(from: 0, to: users.count, by: PhoneAuth.maxImportUsers) {
                let chunk = users[start..<min(start + PhoneAuth.maxImportUsers, users.count)].map {
                    JSONCodec.serialize($0)
                }
                let result = try options.typed { () throws(PhoneAuthKit.PhoneAuthError) in
                    try engine.importUsers(usersJSON: chunk)
                }
                imported += Int64(result.imported)
                errors += result.errors.map {
                    .object([("index", .int(Int64($0.index + start))), ("message", .string($0.message))])
                }
                progress.show(start + chunk.count, of: users.count)
            }
            progress.finish()
            if options.json {
                options.printJSON(.object([("imported", .int(imported)), ("errors", .array(errors))]))
            } else {
                print("\(imported) of \(users.count) users imported from \(file).")
                for error in errors {
                    print("  user \(UsersCommand.text(error["index"])): \(UsersCommand.text(error["message"]))")
                }
            }
            if !errors.isEmpty { throw ExitCode(ExitCodes.refused) }
        }
    }
}

/// A one-line progress bar on stderr, only when stderr is a terminal.
final class Progress {
    private let verb: String
    private let enabled = isatty(STDERR_FILENO) == 1
    private var shown = false

    init(verb: String) { self.verb = verb }

    func show(_ done: Int, of total: Int? = nil) {
        guard enabled else { return }
        shown = true
        if let total, total > 0 {
            let filled = done * 30 / total
            StandardStream.error.write(
                "\r[\(String(repeating: "#", count: filled))"
                    + "\(String(repeating: ".", count: 30 - filled))] \(done)/\(total) \(verb)"
            )
        } else {
            StandardStream.error.write("\r\(done) users \(verb)")
        }
    }

    func finish() { if shown { StandardStream.error.write("\n") } }
}
