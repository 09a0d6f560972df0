import ArgumentParser
import PhoneAuthCore
import PhoneAuthKit

/// `phoneauth users …`: look users up and change them, as the admin methods do.
struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Looks up, lists and changes users.",
        discussion:
            "Each works in the default pool of users, or with --tenant in that tenant's: a user of another pool "
            + "is not found.",
        subcommands: [Get.self, Find.self, List.self, Create.self, Disable.self, Enable.self, Delete.self, Claims.self]
    )

    /// One user as lines of "field: value", or its JSON.
    static func show(_ user: JSONValue, _ options: EngineOptions) {
        guard !options.json else { return options.printJSON(.object([("user", user)])) }
        let u = options.shown(user)
        let factors =
            u["multiFactor"]?["enrolledFactors"].flatMap { value -> [JSONValue]? in
                if case let .array(items) = value { return items }
                return nil
            } ?? []
        var table = Table("FIELD", "VALUE")
        table.add("uid", text(u["uid"]))
        if let tenant = u["tenantId"], tenant != .null { table.add("tenant", text(tenant)) }
        table.add("phone number", text(u["phoneNumber"]))
        table.add("display name", text(u["displayName"]))
        table.add("disabled", text(u["disabled"]))
        table.add("created", text(u["metadata"]?["creationTime"]))
        table.add("last sign-in", text(u["metadata"]?["lastSignInTime"]))
        table.add("tokens valid after", text(u["tokensValidAfterTime"]))
        table.add("custom claims", u["customClaims"].map { $0 == .null ? "-" : JSONCodec.serialize($0) } ?? "-")
        for factor in factors {
            table.add(
                "second factor", "\(text(factor["factorId"])) \(text(factor["phoneNumber"])) \(text(factor["uid"]))")
        }
        // A passkey by its name, its credential ID (what the user's deletePasskey names) and its use.
        for passkey in u["passkeyInfo"]?.arrayValue ?? [] {
            table.add(
                "passkey",
                "\(text(passkey["name"])) \(text(passkey["credentialId"])) created \(text(passkey["createdAt"]))"
                    + " last used \(text(passkey["lastUsedAt"]))")
        }
        print(table.text)
    }

    static func text(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: return "-"
        case let .string(s)?: return s
        case let .bool(b)?: return b ? "yes" : "no"
        case let .int(n)?: return String(n)
        case let other?: return JSONCodec.serialize(other)
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Shows the user with this uid.")
        @OptionGroup var options: EngineOptions
        @OptionGroup var scope: TenantOption
        @Argument(help: "The user's uid.") var uid: String

        func run() throws {
            try options.withEngine { engine in
                show(try options.call(engine, "getUser", scope.params(("uid", .string(uid))))["user"] ?? .null, options)
            }
        }
    }

    struct Find: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Shows the user who signs in with this phone number.")
        @OptionGroup var options: EngineOptions
        @OptionGroup var scope: TenantOption
        @Argument(help: "The phone number, e.g. +16505551234.") var phoneNumber: String

        func run() throws {
            try options.withEngine { engine in
                show(
                    try options.call(
                        engine, "getUserByPhoneNumber", scope.params(("phoneNumber", .string(phoneNumber))))[
                            "user"] ?? .null, options)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lists users in uid order, a page at a time.")
        @OptionGroup var options: EngineOptions
        @OptionGroup var scope: TenantOption
        @Option(help: "Users per page (1 to 1000).") var limit = 100
        @Option(help: "Where the previous page ended (its nextPageToken).") var pageToken: String?

        func run() throws {
            try options.withEngine { engine in
                var params: [(String, JSONValue)] = [("maxResults", .int(Int64(limit)))]
                if let pageToken { params.append(("pageToken", .string(pageToken))) }
                let page = try options.call(engine, "listUsers", scope.params(params))
                guard !options.json else { return options.printJSON(page) }
                var table = Table("UID", "PHONE NUMBER", "NAME", "DISABLED", "CREATED", "LAST SIGN-IN", "FACTORS")
                if case let .array(users)? = options.shown(page)["users"] {
                    for u in users {
                        var factors = 0
                        if case let .array(items)? = u["multiFactor"]?["enrolledFactors"] { factors = items.count }
                        table.add(
                            text(u["uid"]), text(u["phoneNumber"]), text(u["displayName"]), text(u["disabled"]),
                            text(u["metadata"]?["creationTime"]), text(u["metadata"]?["lastSignInTime"]),
                            String(factors))
                    }
                }
                print(table.text)
                if let next = page["pageToken"]?.stringValue { print("next page: --page-token \(next)") }
            }
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Creates a user, who then signs in with its phone number's codes.",
            discussion: "Without --uid the engine makes one. A uid is unique across every tenant.")
        @OptionGroup var options: EngineOptions
        @OptionGroup var scope: TenantOption
        @Option(help: "The new user's uid (default: a new random one).") var uid: String?
        @Option(help: "The number the user signs in with, e.g. +16505551234.") var phoneNumber: String?
        @Option(help: "The user's display name.") var displayName: String?
        @Flag(help: "Creates the user disabled.") var disabled = false

        func run() throws {
            try options.withEngine { engine in
                // What is not given is left out (the engine refuses null where it means nothing).
                let given: [(String, String?)] = [
                    ("uid", uid), ("phoneNumber", phoneNumber), ("displayName", displayName),
                ]
                let params = given.compactMap { name, value in value.map { (name, JSONValue.string($0)) } }
                let user =
                    try options.call(engine, "createUser", scope.params(params + [("disabled", .bool(disabled))]))[
                        "user"] ?? .null
                show(user, options)
            }
        }
    }

    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disables a user: its sessions end and it cannot sign in.")
        @OptionGroup var options: EngineOptions
        @OptionGroup var scope: TenantOption
        @Argument(help: "The user's uid.") var uid: String

        func run() throws { try setDisabled(true, uid: uid, options, scope) }
    }

    struct Enable: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enables a disabled user again.")
        @OptionGroup var options: EngineOptions
        @OptionGroup var scope: TenantOption
        @Argument(help: "The user's uid.") var uid: String

        func run() throws { try setDisabled(false, uid: uid, options, scope) }
    }

    static func setDisabled(_ disabled: Bool, uid: String, _ options: EngineOptions, _ scope: TenantOption) throws {
        try options.withEngine { engine in
            let user =
                try options.call(
                    engine, "updateUser", scope.params(("uid", .string(uid)), ("disabled", .bool(disabled))))["user"]
                ?? .null
            if options.json { return options.printJSON(.object([("user", user)])) }
            print("\(uid) is \(disabled ? "disabled" : "enabled").")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deletes a user, its second factors and sessions.")
        @OptionGroup var options: EngineOptions
        @OptionGroup var scope: TenantOption
        @Argument(help: "The user's uid.") var uid: String

        func run() throws {
            try options.withEngine { engine in
                _ = try options.call(engine, "deleteUser", scope.params(("uid", .string(uid))))
                if options.json { return options.printJSON(.object([("deleted", .string(uid))])) }
                print("\(uid) is deleted.")
            }
        }
    }

    struct Claims: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Shows a user's custom claims, or sets them.",
            discussion: "With CLAIMS (a JSON object), sets them; {} or null removes them. Later ID tokens carry them.")
        @OptionGroup var options: EngineOptions
        @OptionGroup var scope: TenantOption
        @Argument(help: "The user's uid.") var uid: String
        @Argument(help: "The claims to set, as a JSON object.") var claims: String?

        func run() throws {
            try options.withEngine { engine in
                if let claims {
                    let value: JSONValue
                    do { value = try JSONCodec.parse(claims) } catch let error as JSONCodec.ParseError {
                        throw Failure(
                            message: "CLAIMS is not valid JSON: \(error.message).", exitCode: ExitCodes.refused)
                    }
                    _ = try options.call(
                        engine, "setCustomUserClaims", scope.params(("uid", .string(uid)), ("claims", value)))
                }
                let user = try options.call(engine, "getUser", scope.params(("uid", .string(uid))))["user"]
                let current = user?["customClaims"] ?? .null
                if options.json { return options.printJSON(.object([("uid", .string(uid)), ("claims", current)])) }
                print(current == .null ? "\(uid) has no custom claims." : JSONCodec.serialize(current))
            }
        }
    }
}
