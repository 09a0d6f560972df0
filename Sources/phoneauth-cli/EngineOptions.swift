import ArgumentParser
import Glibc
import PhoneAuthCore
import PhoneAuthKit

/// What every command that opens an engine shares: the configuration, the output form, masking.
struct EngineOptions: ParsableArguments {
    @Option(
        help:
            """
            The engine's configuration file (the JSON phoneauth_open takes). Default: $PHONEAUTH_CONFIG; \
            without either, $PHONEAUTH_DATABASE names the database.
            """
    )
    var config: String?

    @Flag(help: "Print JSON (for scripts) instead of tables.")
    var json = false

    @Flag(help: "Print phone numbers whole; they are masked to their last four digits otherwise.")
    var showNumbers = false

    /// Opens the engine the configuration describes (exit 3 when it cannot be), through the Swift
    /// API like any Swift host.
    func open() throws -> PhoneAuth {
        do {
            var json: JSONValue = .object([])
            if let path = config ?? EngineConfig.environment("PHONEAUTH_CONFIG") {
                json = try JSONFile.read(path)
            }
            // The configuration may carry phoneauthd's section; the engine does not read it.
            if case let .object(pairs) = json { json = .object(pairs.filter { $0.0 != "server" }) }
            json = Self.recordingOnly(json)
            return try PhoneAuth(json: JSONCodec.serialize(json))
        } catch let failure as Failure {
            throw Failure(message: failure.message, exitCode: ExitCodes.cannotOpen)
        } catch {
            throw Failure(message: "\(error)", exitCode: ExitCodes.cannotOpen)
        }
    }

    /// Opens the engine, runs `body` with it, closes it; failures become messages and exit statuses.
    func withEngine(_ body: (PhoneAuth) throws -> Void) throws {
        try reporting {
            let engine = try open()
            defer { engine.close() }
            try body(engine)
        }
    }

    /// The configuration with its events recorded but not delivered: a command's engine lives for
    /// a moment, and delivery is the servers' (which find what it recorded within a second).
    static func recordingOnly(_ json: JSONValue) -> JSONValue {
        guard case let .object(pairs) = json, case let .object(events)? = json["events"] else { return json }
        let kept = events.filter { EventSettings.ownKeys.contains($0.0) }
        return .object(pairs.map { $0.0 == "events" ? ($0.0, .object(kept)) : $0 })
    }

    /// Runs a typed call; an engine error is printed and becomes the exit status, as for `call`.
    func typed<T>(_ body: () throws(PhoneAuthKit.PhoneAuthError) -> T) throws -> T {
        do { return try body() } catch {
            throw Failure(
                message: "\(error.code.name): \(error.message)",
                exitCode: error.code == .userNotFound || error.code == .tenantNotFound
                    ? ExitCodes.notFound : ExitCodes.refused)
        }
    }

    /// Runs a method; an engine error is printed and becomes the exit status.
    func call(_ engine: PhoneAuth, _ method: String, _ params: JSONValue = .object([])) throws -> JSONValue {
        let (status, text) = engine.call(method, paramsJSON: JSONCodec.serialize(params))
        guard let result = try? JSONCodec.parse(text) else {
            throw Failure(message: "\(method) answered with text that is not JSON.", exitCode: ExitCodes.refused)
        }
        guard status != 0 else { return result }
        let code = result["error"]?["code"]?.stringValue ?? "error"
        let message = result["error"]?["message"]?.stringValue ?? ""
        throw Failure(
            message: "\(code): \(message)",
            exitCode: ["userNotFound", "tenantNotFound"].contains(code) ? ExitCodes.notFound : ExitCodes.refused)
    }

    /// `value` as printed: numbers masked unless --show-numbers.
    func shown(_ value: JSONValue) -> JSONValue {
        showNumbers ? value : Self.masked(value)
    }

    private static func masked(_ value: JSONValue) -> JSONValue {
        switch value {
        // A pumping decision's scope is a prefix (a number without its last digits), not a number.
        case let .object(pairs): return .object(pairs.map { ($0, $0 == "scope" ? $1 : masked($1)) })
        case let .array(items): return .array(items.map(masked))
        // Any value shaped like an E.164 number, whatever its key (providerData's uid is one).
        case let .string(text) where text.hasPrefix("+") && text.count >= 8 && text.dropFirst().allSatisfy(\.isNumber):
            return .string(PhoneNumber.mask(text))
        default: return value
        }
    }

    func printJSON(_ value: JSONValue) {
        print(JSONCodec.serialize(shown(value)))
    }
}

/// `--tenant T`: the user pool a command works in (docs/API.md, "Tenants").
struct TenantOption: ParsableArguments {
    @Option(help: "The tenant (its ID) whose users these are. Default: the default pool, which has no tenant.")
    var tenant: String?

    /// A method's parameters, with `tenantId` when --tenant names a tenant.
    func params(_ pairs: (String, JSONValue)...) -> JSONValue { params(pairs) }

    func params(_ pairs: [(String, JSONValue)]) -> JSONValue {
        .object(pairs + (tenant.map { [("tenantId", .string($0))] } ?? []))
    }

    /// The engine, or its view for the tenant --tenant names (whose calls then pass `tenantId`).
    func scoped(_ engine: PhoneAuth, _ options: EngineOptions) throws -> PhoneAuth {
        guard let tenant else { return engine }
        return try options.typed { () throws(PhoneAuthKit.PhoneAuthError) in try engine.tenant(tenant) }
    }
}

/// The exit statuses, as README's "Operating it" lists them.
enum ExitCodes {
    static let refused: Int32 = 1  // the engine refused (the message says why)
    static let notFound: Int32 = 2  // no such user, or no such tenant
    static let cannotOpen: Int32 = 3  // bad configuration, or the database cannot be opened
    // 64: a usage error (swift-argument-parser's)
}

/// A failure printed as "phoneauth: <message>" on stderr, with its exit status.
struct Failure: Error, CustomStringConvertible {
    let message: String
    let exitCode: Int32
    var description: String { message }
}

/// Runs a command body, turning a Failure into its message and exit status.
func reporting(_ body: () throws -> Void) throws {
    do { try body() } catch let failure as Failure {
        StandardStream.error.write("phoneauth: \(failure.message)\n")
        throw ExitCode(failure.exitCode)
    }
}

/// Whole JSON files, read and written.
enum JSONFile {
    static func read(_ path: String) throws -> JSONValue {
        do { return try JSONCodec.parse(contentsOf: path, code: .invalidArgument) } catch {
            throw Failure(message: error.message, exitCode: ExitCodes.refused)
        }
    }

    /// Writes `text` to `path` whole or not at all (a temporary file renamed over it).
    static func write(_ text: String, to path: String) throws {
        let temporary = path + ".tmp"
        guard let file = fopen(temporary, "wb") else {
            throw Failure(
                message: "\(path): cannot be written (\(String(cString: strerror(errno)))).",
                exitCode: ExitCodes.refused)
        }
        let written = fputs(text, file) >= 0 && fflush(file) == 0 && fsync(fileno(file)) == 0
        fclose(file)
        guard written, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw Failure(
                message: "\(path): cannot be written (\(String(cString: strerror(errno)))).",
                exitCode: ExitCodes.refused)
        }
    }
}
