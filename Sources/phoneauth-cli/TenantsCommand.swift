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

    /// One tenant as lines of "field: value", or its JSON (as the getTenant method writes it).
    static func show(_ tenant: PhoneAuthKit.Tenant, _ options: EngineOptions) {
        guard !options.json else { return options.printJSON(.object([("tenant", tenant.record.json)])) }
        var table = Table("FIELD", "VALUE")
        table.add("tenant ID", tenant.tenantID)
        table.add("display name", tenant.displayName)
        if tenant.testPhoneNumbers.isEmpty { table.add("test numbers", "-") }
        for (number, code) in tenant.testPhoneNumbers.sorted(by: { $0.key < $1.key }) {
            table.add("test number", "\(number) \(code)")
        }
        table.add("SMS regions", regions(tenant.smsRegionPolicy))
        table.add("second factors", factors(tenant.secondFactors))
        table.add("SMS app name", tenant.smsAppName ?? "-")
        table.add("SMS pumping", pumping(tenant.pumping))
        table.add("created", tenant.record.createdAt.rfc3339)
        table.add("updated", tenant.record.updatedAt.rfc3339)
        print(table.text)
    }

    /// The tenant's pumping settings in a few words: "record; allows +44 198.51.100.0/24; toll
    /// fraud AUDIT from 0.8", "-" (the engine's alone).
    static func pumping(_ settings: PumpingSettings?) -> String {
        guard let settings else { return "-" }
        let allowed = settings.allowPrefixes + settings.allowNetworks
        var words =
            (settings.mode?.rawValue ?? "engine's mode")
            + (allowed.isEmpty ? "" : "; allows " + allowed.joined(separator: " "))
        if let tollFraud = settings.tollFraud {
            let starts = tollFraud.blockingStartScores.map { "\($0)" }.joined(separator: ",")
            words +=
                "; toll fraud \(tollFraud.phoneEnforcementState.rawValue)"
                + (tollFraud.useSmsTollFraudProtection ? "" : " (not rated)")
                + (starts.isEmpty ? "" : " from \(starts)")
        }
        return words
    }

    /// A region policy in a few words: "allow US,CA" (only those), "deny XX,YY" (all but those),
    /// "-" (the engine's policy alone).
    static func regions(_ policy: SMSRegionPolicy?) -> String {
        func list(_ regions: Set<String>) -> String {
            regions.isEmpty ? "none" : regions.sorted().joined(separator: ",")
        }
        switch policy {
        case let .allowlistOnly(allowed)?: return "allow \(list(allowed))"
        case let .allowByDefault(denied)?: return "deny \(list(denied))"
        case nil: return "-"
        }
    }

    /// The second factors a tenant's users may enrol: "phone,totp", "none", or "all" (nil).
    static func factors(_ kinds: Set<SecondFactorKind>?) -> String {
        guard let kinds else { return "all" }
        return kinds.isEmpty ? "none" : kinds.map(\.rawValue).sorted().joined(separator: ",")
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lists tenants in ID order, a page at a time.")
        @OptionGroup var options: EngineOptions
        @Option(name: [.customLong("limit"), .customLong("max-results")], help: "Tenants per page (1 to 1000).")
        var limit = 100
        @Option(help: "Where the previous page ended (its next page token).") var pageToken: String?

        func run() throws {
            try options.withEngine { engine in
                let page = try options.typed { () throws(PhoneAuthKit.PhoneAuthError) in
                    try engine.listTenants(maxResults: limit, pageToken: pageToken)
                }
                guard !options.json else {
                    // As the listTenants method writes its page.
                    var json = JSONObjectBuilder()
                    json.set("tenants", .array(page.tenants.map(\.record.json)))
                    json.set("pageToken", page.nextPageToken.map { .string($0) })
                    return options.printJSON(json.value)
                }
                var table = Table(
                    "ID", "DISPLAY NAME", "TEST NUMBERS", "SMS REGIONS", "SECOND FACTORS", "SMS APP NAME", "CREATED")
                for t in page.tenants {
                    table.add(
                        t.tenantID, t.displayName, String(t.testPhoneNumbers.count), regions(t.smsRegionPolicy),
                        factors(t.secondFactors), t.smsAppName ?? "-", t.record.createdAt.rfc3339)
                }
                print(table.text)
                if let next = page.nextPageToken { print("next page: --page-token \(next)") }
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
                    try options.typed { () throws(PhoneAuthKit.PhoneAuthError) in try engine.getTenant(tenantId) },
                    options)
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
                var changes = try settings.changes()
                changes.displayName = displayName
                show(
                    try options.typed { () throws(PhoneAuthKit.PhoneAuthError) in
                        try engine.createTenant(id: id, changes)
                    }, options)
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
                var changes = try settings.changes()
                changes.displayName = displayName
                if noTestNumbers { changes.testPhoneNumbers = [:] }
                if noRegionPolicy { changes.smsRegionPolicy = .some(nil) }
                if noAppName { changes.smsAppName = .some(nil) }
                show(
                    try options.typed { () throws(PhoneAuthKit.PhoneAuthError) in
                        try engine.updateTenant(tenantId, changes)
                    }, options)
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
                try options.typed { () throws(PhoneAuthKit.PhoneAuthError) in try engine.deleteTenant(tenantId) }
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
        _ = try changes()
    }

    private func trimmed(_ text: Substring) -> String {
        String(text.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }

    /// The settings given, as the changes createTenant and updateTenant make.
    func changes() throws -> PhoneAuthKit.TenantChanges {
        var changes = PhoneAuthKit.TenantChanges()
        if !testNumber.isEmpty {
            var numbers: [String: String] = [:]
            for pair in testNumber {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw ValidationError("--test-number takes +E164=CODE, e.g. +16505551234=123456, not '\(pair)'.")
                }
                guard numbers[String(parts[0])] == nil else {
                    throw ValidationError("--test-number gives \(parts[0]) twice.")
                }
                numbers[String(parts[0])] = String(parts[1])
            }
            changes.testPhoneNumbers = numbers
        }
        func regions(_ text: String) -> Set<String> {
            Set(text.split(separator: ",").map { trimmed($0).uppercased() }.filter { !$0.isEmpty })
        }
        if let allowRegions { changes.smsRegionPolicy = .allowlistOnly(allowedRegions: regions(allowRegions)) }
        if let denyRegions { changes.smsRegionPolicy = .allowByDefault(disallowedRegions: regions(denyRegions)) }
        if let secondFactors {
            let words = secondFactors.lowercased().split(separator: ",", omittingEmptySubsequences: false).map(trimmed)
            switch words {
            case ["all"]: changes.secondFactors = .some(nil)
            case ["none"]: changes.secondFactors = []
            default:
                let kinds = words.compactMap(SecondFactorKind.init(rawValue:))
                guard kinds.count == words.count else {
                    throw ValidationError(
                        "--second-factors takes phone, totp, phone,totp, none or all, not '\(secondFactors)'.")
                }
                changes.secondFactors = Set(kinds)
            }
        }
        if let appName { changes.smsAppName = appName }
        return changes
    }
}
