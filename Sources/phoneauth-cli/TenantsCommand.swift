import ArgumentParser
import PhoneAuthCore
import PhoneAuthKit

/// `phoneauth tenants …`: the tenants, each a pool of users with settings of its own.
struct TenantsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenants",
        abstract: "Lists, shows, creates, changes and deletes tenants.",
        discussion:
            "A tenant is a pool of users of its own (give its ID as --tenant to users, export and import), with "
            + "its own test numbers, SMS regions, second factors and SMS app name; SMS limits and lockouts are "
            + "shared by every tenant. Test numbers are printed whole: they are settings, not users'.",
        subcommands: [List.self, Get.self, Create.self, Update.self, Delete.self])

    /// One tenant as lines of "field: value", or its JSON.
    static func show(_ tenant: JSONValue, _ options: EngineOptions) {
        guard !options.json else { return options.printJSON(.object([("tenant", tenant)])) }
        let text = UsersCommand.text
        var table = Table("FIELD", "VALUE")
        table.add("tenant ID", text(tenant["tenantId"]))
        table.add("display name", text(tenant["displayName"]))
        let numbers = tenant["testPhoneNumbers"]?.objectPairs ?? []
        if numbers.isEmpty { table.add("test numbers", "-") }
        for (number, code) in numbers { table.add("test number", "\(number) \(text(code))") }
        table.add("SMS regions", regions(tenant["smsRegionPolicy"]))
        table.add("second factors", factors(tenant["secondFactors"]))
        table.add("SMS app name", text(tenant["smsAppName"]))
        table.add("created", text(tenant["createdAt"]))
        table.add("updated", text(tenant["updatedAt"]))
        print(table.text)
    }

    /// A region policy in a few words: "allow US,CA" (only those), "deny XX,YY" (all but those),
    /// "-" (the engine's policy alone).
    static func regions(_ policy: JSONValue?) -> String {
        func list(_ value: JSONValue?) -> String {
            let regions = (value?.arrayValue ?? []).compactMap(\.stringValue)
            return regions.isEmpty ? "none" : regions.joined(separator: ",")
        }
        if let allowed = policy?["allowlistOnly"] { return "allow \(list(allowed["allowedRegions"]))" }
        if let denied = policy?["allowByDefault"] { return "deny \(list(denied["disallowedRegions"]))" }
        return "-"
    }

    /// The second factors a tenant's users may enrol: "phone,totp", "none", or "all" (null).
    static func factors(_ value: JSONValue?) -> String {
        guard let kinds = value?.arrayValue else { return "all" }
        return kinds.isEmpty ? "none" : kinds.compactMap(\.stringValue).joined(separator: ",")
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lists tenants in ID order, a page at a time.")
        @OptionGroup var options: EngineOptions
        @Option(name: [.customLong("limit"), .customLong("max-results")], help: "Tenants per page (1 to 1000).")
        var limit = 100
        @Option(help: "Where the previous page ended (its next page token).") var pageToken: String?

        func run() throws {
            try options.withEngine { engine in
                // What is not given is left out (the engine refuses null where it means nothing).
                var params: [(String, JSONValue)] = [("maxResults", .int(Int64(limit)))]
                if let pageToken { params.append(("pageToken", .string(pageToken))) }
                let page = try options.call(engine, "listTenants", .object(params))
                guard !options.json else { return options.printJSON(page) }
                var table = Table(
                    "ID", "DISPLAY NAME", "TEST NUMBERS", "SMS REGIONS", "SECOND FACTORS", "SMS APP NAME", "CREATED")
                for t in page["tenants"]?.arrayValue ?? [] {
                    table.add(
                        UsersCommand.text(t["tenantId"]), UsersCommand.text(t["displayName"]),
                        String(t["testPhoneNumbers"]?.objectPairs.count ?? 0), regions(t["smsRegionPolicy"]),
                        factors(t["secondFactors"]), UsersCommand.text(t["smsAppName"]),
                        UsersCommand.text(t["createdAt"]))
                }
                print(table.text)
                if let next = page["pageToken"]?.stringValue { print("next page: --page-token \(next)") }
            }
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Shows the tenant with this ID and its settings.")
        @OptionGroup var options: EngineOptions
        @Argument(help: "The tenant's ID.") var tenantId: String

        func run() throws {
            try options.withEngine { engine in
                show(
                    try options.call(engine, "getTenant", .object([("tenantId", .string(tenantId))]))["tenant"]
                        ?? .null, options)
            }
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Creates a tenant and shows it.",
            discussion:
                "Without --id, the ID is the display name in lower case and 5 random letters and digits "
                + "(acme-x7k2p). Settings not given are the engine's: no test numbers, the engine's SMS regions "
                + "alone, every second factor, the engine's SMS app name.")
        @OptionGroup var options: EngineOptions
        @Option(help: "4 to 20 letters, digits and hyphens, starting with a letter.") var displayName: String
        @Option(help: "The tenant's ID: 1 to 64 letters, digits and hyphens, starting with a letter or digit.")
        var id: String?
        @OptionGroup var settings: TenantSettingsOptions

        func run() throws {
            try options.withEngine { engine in
                var params: [(String, JSONValue)] = [("displayName", .string(displayName))]
                if let id { params.append(("tenantId", .string(id))) }
                params += try settings.params()
                show(try options.call(engine, "createTenant", .object(params))["tenant"] ?? .null, options)
            }
        }
    }

    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Changes a tenant's display name or settings and shows it.",
            discussion:
                "What is not given is kept. --test-number replaces every test number of the tenant; "
                + "--no-test-numbers, --no-region-policy, --second-factors all and --no-app-name go back to the "
                + "engine's.")
        @OptionGroup var options: EngineOptions
        @Argument(help: "The tenant's ID.") var tenantId: String
        @Option(help: "4 to 20 letters, digits and hyphens, starting with a letter.") var displayName: String?
        @OptionGroup var settings: TenantSettingsOptions
        @Flag(help: "Removes every test number of the tenant.") var noTestNumbers = false
        @Flag(help: "Removes the tenant's SMS regions: the engine's alone apply.") var noRegionPolicy = false
        @Flag(help: "Removes the tenant's SMS app name: the engine's is used.") var noAppName = false

        func validate() throws {
            if noTestNumbers && !settings.testNumber.isEmpty {
                throw ValidationError("Give --test-number or --no-test-numbers, not both.")
            }
            if noRegionPolicy && (settings.allowRegions != nil || settings.denyRegions != nil) {
                throw ValidationError("Give --allow-regions, --deny-regions or --no-region-policy, not two of them.")
            }
            if noAppName && settings.appName != nil {
                throw ValidationError("Give --app-name or --no-app-name, not both.")
            }
            if displayName == nil && settings.isEmpty && !noTestNumbers && !noRegionPolicy && !noAppName {
                throw ValidationError("Nothing to change: give --display-name or a setting.")
            }
        }

        func run() throws {
            try options.withEngine { engine in
                var params: [(String, JSONValue)] = [("tenantId", .string(tenantId))]
                if let displayName { params.append(("displayName", .string(displayName))) }
                params += try settings.params()
                if noTestNumbers { params.append(("testPhoneNumbers", .null)) }
                if noRegionPolicy { params.append(("smsRegionPolicy", .null)) }
                if noAppName { params.append(("smsAppName", .null)) }
                show(try options.call(engine, "updateTenant", .object(params))["tenant"] ?? .null, options)
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Deletes a tenant that has no users left.",
            discussion: "Delete its users first (users list --tenant ID, users delete --tenant ID UID).")
        @OptionGroup var options: EngineOptions
        @Argument(help: "The tenant's ID.") var tenantId: String

        func run() throws {
            try options.withEngine { engine in
                _ = try options.call(engine, "deleteTenant", .object([("tenantId", .string(tenantId))]))
                if options.json { return options.printJSON(.object([("deleted", .string(tenantId))])) }
                print("\(tenantId) is deleted.")
            }
        }
    }
}

/// The settings `tenants create` and `tenants update` take.
struct TenantSettingsOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A test number and its fixed 6-digit code; repeat it for more (at most 10). No SMS goes to it.",
            valueName: "+E164=CODE"))
    var testNumber: [String] = []

    @Option(
        help: ArgumentHelp(
            "Sends codes only to numbers of these regions (region codes such as US), if the engine allows them too.",
            valueName: "US,CA"))
    var allowRegions: String?

    @Option(
        help: ArgumentHelp(
            "Sends no codes to numbers of these regions (region codes such as US); the engine's policy applies too.",
            valueName: "XX,YY"))
    var denyRegions: String?

    @Option(
        help: ArgumentHelp(
            "The second factors its users may enrol: phone, totp, phone,totp, none, or all.",
            valueName: "phone,totp|none|all"))
    var secondFactors: String?

    @Option(help: "The app name its SMS texts use (the engine's sms.appName otherwise).") var appName: String?

    var isEmpty: Bool {
        testNumber.isEmpty && allowRegions == nil && denyRegions == nil && secondFactors == nil && appName == nil
    }

    func validate() throws {
        if allowRegions != nil && denyRegions != nil {
            throw ValidationError("Give --allow-regions or --deny-regions, not both.")
        }
        _ = try params()
    }

    private func trimmed(_ text: Substring) -> String {
        String(text.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }

    /// The settings given, as the parameters of createTenant and updateTenant.
    func params() throws -> [(String, JSONValue)] {
        var params: [(String, JSONValue)] = []
        if !testNumber.isEmpty {
            var numbers: [(String, JSONValue)] = []
            for pair in testNumber {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw ValidationError("--test-number takes +E164=CODE, e.g. +16505551234=123456, not '\(pair)'.")
                }
                guard !numbers.contains(where: { $0.0 == String(parts[0]) }) else {
                    throw ValidationError("--test-number gives \(parts[0]) twice.")
                }
                numbers.append((String(parts[0]), .string(String(parts[1]))))
            }
            params.append(("testPhoneNumbers", .object(numbers)))
        }
        func regions(_ text: String) -> JSONValue {
            .array(
                text.split(separator: ",").map { trimmed($0).uppercased() }
                    .filter { !$0.isEmpty }.map { .string($0) })
        }
        if let allowRegions {
            params.append(
                ("smsRegionPolicy", .object([("allowlistOnly", .object([("allowedRegions", regions(allowRegions))]))])))
        }
        if let denyRegions {
            params.append(
                (
                    "smsRegionPolicy",
                    .object([("allowByDefault", .object([("disallowedRegions", regions(denyRegions))]))])
                ))
        }
        if let secondFactors {
            let words = secondFactors.lowercased().split(separator: ",", omittingEmptySubsequences: false).map(trimmed)
            switch words {
            case ["all"]: params.append(("secondFactors", .null))
            case ["none"]: params.append(("secondFactors", .array([])))
            default:
                guard words.allSatisfy({ ["phone", "totp"].contains($0) }) else {
                    throw ValidationError(
                        "--second-factors takes phone, totp, phone,totp, none or all, not '\(secondFactors)'.")
                }
                params.append(("secondFactors", .array(words.map { .string($0) })))
            }
        }
        if let appName { params.append(("smsAppName", .string(appName))) }
        return params
    }
}
