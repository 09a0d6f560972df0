import ArgumentParser
import Glibc
import PhoneAuthCore
import PhoneAuthKit

/// `phoneauth export FILE`: every user, in the JSON of Firebase's `auth:export`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Writes every user to FILE in Firebase's auth:export JSON.",
        discussion: "The file holds whole phone numbers (it is data, not a display): keep it as safe as the database.")
    @OptionGroup var options: EngineOptions
    @Argument(help: "The file to write (replaced whole when done).") var file: String

    func run() throws {
        try options.withEngine { engine in
            let progress = Progress(verb: "exported")
            var users: [JSONValue] = [], token: String?
            repeat {
                var params: [(String, JSONValue)] = [("maxResults", .int(1000))]
                if let token { params.append(("pageToken", .string(token))) }
                let page = try options.call(engine, "exportUsers", .object(params))
                if case let .array(items)? = page["users"] { users += items }
                token = page["pageToken"]?.stringValue
                progress.show(users.count)
            } while token != nil
            progress.finish()
            try JSONFile.write(JSONCodec.serialize(.object([("users", .array(users))])), to: file)
            if options.json { return options.printJSON(.object([("exported", .int(Int64(users.count)))])) }
            print("\(users.count) users written to \(file).")
        }
    }
}

/// `phoneauth import FILE`: users from Firebase's `auth:export` JSON (or PhoneAuth's export).
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Imports the users of FILE (Firebase's auth:export JSON).",
        discussion: "Users that cannot be imported are listed by their index in the file; the others are. Importing a file again changes nothing. Exit status 1 when any user was not imported.")
    @OptionGroup var options: EngineOptions
    @Argument(help: "The file to read.") var file: String

    func run() throws {
        try reporting {
            guard case let .array(users)? = try JSONFile.read(file)["users"] else {
                throw Failure(message: "\(file) has no \"users\" array.", exitCode: ExitCodes.refused)
            }
            let engine = try options.open()
            defer { engine.close() }
            let progress = Progress(verb: "imported")
            var imported: Int64 = 0, errors: [JSONValue] = []
            for start in stride(from: 0, to: users.count, by: PhoneAuth.maxImportUsers) {
                let chunk = Array(users[start..<min(start + PhoneAuth.maxImportUsers, users.count)])
                let result = try options.call(engine, "importUsers", .object([("users", .array(chunk))]))
                imported += result["imported"]?.intValue ?? 0
                if case let .array(items)? = result["errors"] {
                    errors += items.map { .object([("index", .int((($0["index"]?.intValue) ?? 0) + Int64(start))), ("message", $0["message"] ?? .null)]) }
                }
                progress.show(start + chunk.count, of: users.count)
            }
            progress.finish()
            if options.json {
                options.printJSON(.object([("imported", .int(imported)), ("errors", .array(errors))]))
            } else {
                print("\(imported) of \(users.count) users imported from \(file).")
                for error in errors { print("  user \(UsersCommand.text(error["index"])): \(UsersCommand.text(error["message"]))") }
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
            fputs("\r[\(String(repeating: "#", count: filled))\(String(repeating: ".", count: 30 - filled))] \(done)/\(total) \(verb)", stderr)
        } else {
            fputs("\r\(done) users \(verb)", stderr)
        }
        fflush(stderr)
    }

    func finish() { if shown { fputs("\n", stderr) } }
}
