import PhoneAuthCore

/// The form that edits a tenant's settings (docs/API.md, "Tenants"), and what its fields become
/// for updateTenant: the display name, the test numbers (a `+number code` line each), the SMS
/// region policy (a kind and comma-separated region codes), the second factors (ticked kinds, or
/// every kind) and the SMS app name. The pumping and passkeys settings are not in the form, so
/// updateTenant keeps them. The engine checks every value and names the field it refuses; the
/// form refuses only what it cannot turn into JSON.
enum ConsoleTenantSettings {
    static let factorKinds = [("phone", "Phone (SMS codes)"), ("totp", "TOTP (an authenticator app)")]
    static let regionPolicies = [
        ("engine", "The engine's policy alone"), ("allowByDefault", "Every region but those listed"),
        ("allowlistOnly", "Only the regions listed"),
    ]

    // MARK: The form

    static func form(_ tenant: JSONValue, action: String, csrf: String) -> String {
        let numbers = (tenant["testPhoneNumbers"]?.objectPairs ?? []).map { "\($0.0) \(ConsoleFormat.text($0.1))" }
        let (policy, regions) = regionPolicy(tenant["smsRegionPolicy"])
        let factors = tenant["secondFactors"]?.arrayValue?.compactMap(\.stringValue)
        var inputs = HTML.input(
            "displayName", label: "Display name", value: ConsoleFormat.text(tenant["displayName"]), required: true)
        inputs +=
            "<label for=\"testPhoneNumbers\">Test numbers: one a line, the number then its 6-digit code "
            + "(at most 10)</label><textarea id=\"testPhoneNumbers\" name=\"testPhoneNumbers\" rows=\"5\" cols=\"32\">"
            + HTML.escape(numbers.joined(separator: "\n")) + "</textarea>"
        inputs +=
            "<fieldset><legend>SMS regions (on top of the engine's policy)</legend>"
            + "<label for=\"regionPolicy\">Policy</label><select id=\"regionPolicy\" name=\"regionPolicy\">"
            + regionPolicies.map { value, text in
                "<option value=\"\(value)\"\(value == policy ? " selected" : "")>\(HTML.escape(text))</option>"
            }.joined() + "</select>"
            + HTML.input("regions", label: "Region codes, comma-separated (e.g. GB, IE)", value: regions)
            + "</fieldset>"
        inputs +=
            "<fieldset><legend>Second factors its users may enrol</legend>"
            + checkbox(
                "secondFactorsEvery", value: "1", id: "factorsEvery", label: "Every kind (as the default pool)",
                checked: factors == nil)
            + factorKinds.map { kind, text in
                checkbox(
                    "secondFactor", value: kind, id: "factor-" + kind, label: text,
                    checked: factors?.contains(kind) == true)
            }.joined() + "</fieldset>"
        inputs += HTML.input(
            "smsAppName", label: "SMS app name (empty: the engine's sms.appName)",
            value: tenant["smsAppName"]?.stringValue ?? "")
        return HTML.form(action, csrf: csrf, inputs: inputs, button: "Save settings")
    }

    private static func checkbox(_ name: String, value: String, id: String, label: String, checked: Bool) -> String {
        "<input type=\"checkbox\" id=\"\(HTML.escape(id))\" name=\"\(HTML.escape(name))\""
            + " value=\"\(HTML.escape(value))\"" + (checked ? " checked" : "")
            + "><label for=\"\(HTML.escape(id))\">\(HTML.escape(label))</label>"
    }

    // MARK: Reading the form

    /// updateTenant's params (without `tenantId`) from the posted form; a failure names the field.
    static func params(_ request: ConsoleRequest) -> Result<[(String, JSONValue)], ConsoleFailure> {
        let numbers: JSONValue, policy: JSONValue
        switch testNumbers(request.field("testPhoneNumbers") ?? "") {
        case let .success(value): numbers = value
        case let .failure(failure): return .failure(failure)
        }
        switch regionPolicy(kind: request.field("regionPolicy") ?? "engine", regions: request.field("regions") ?? "") {
        case let .success(value): policy = value
        case let .failure(failure): return .failure(failure)
        }
        let factors: JSONValue =
            request.field("secondFactorsEvery") == "1"
            ? .null : .array(request.form.filter { $0.0 == "secondFactor" }.map { .string($0.1) })
        let appName = (request.field("smsAppName") ?? "").trimmingSpaces
        return .success([
            ("displayName", .string((request.field("displayName") ?? "").trimmingSpaces)),
            ("testPhoneNumbers", numbers), ("smsRegionPolicy", policy), ("secondFactors", factors),
            ("smsAppName", appName.isEmpty ? .null : .string(appName)),
        ])
    }

    /// `+number code` lines as `{"number": "code"}`: the last word of a line is its code, the rest
    /// its number (which may be written with spaces).
    static func testNumbers(_ text: String) -> Result<JSONValue, ConsoleFailure> {
        var pairs: [(String, JSONValue)] = []
        for (index, line) in text.split(whereSeparator: \.isNewline).enumerated() {
            let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
            if words.isEmpty { continue }
            guard words.count >= 2 else {
                return .failure(
                    ConsoleFailure(
                        message: "The field 'testPhoneNumbers': line \(index + 1) must be a number, a space and its "
                            + "6-digit code."))
            }
            pairs.append((words.dropLast().joined(separator: " "), .string(words[words.count - 1])))
        }
        return .success(.object(pairs))
    }

    /// The policy's JSON: null for the engine's alone, else the kind with its region codes
    /// (upper-cased, as CLDR writes them).
    static func regionPolicy(kind: String, regions text: String) -> Result<JSONValue, ConsoleFailure> {
        let regions = text.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map { $0.uppercased() }
        switch kind {
        case "engine":
            guard regions.isEmpty else {
                return .failure(
                    ConsoleFailure(
                        message: "The field 'smsRegionPolicy': regions are listed but the policy chosen is the "
                            + "engine's alone; choose one that uses them, or empty the list."))
            }
            return .success(.null)
        case "allowByDefault", "allowlistOnly":
            let list = kind == "allowByDefault" ? "disallowedRegions" : "allowedRegions"
            return .success(.object([(kind, .object([(list, .array(regions.map { .string($0) }))]))]))
        default:
            return .failure(ConsoleFailure(message: "The field 'smsRegionPolicy' has no kind '\(kind)'."))
        }
    }

    // MARK: Showing the settings

    /// The policy's kind (as the form's select names it) and its regions, comma-separated.
    static func regionPolicy(_ policy: JSONValue?) -> (String, String) {
        for (kind, list) in [("allowByDefault", "disallowedRegions"), ("allowlistOnly", "allowedRegions")] {
            if let regions = policy?[kind]?[list]?.arrayValue {
                return (kind, regions.compactMap(\.stringValue).joined(separator: ", "))
            }
        }
        return ("engine", "")
    }

    static func regionText(_ policy: JSONValue?) -> String {
        switch regionPolicy(policy) {
        case ("allowByDefault", ""): "every region"
        case let ("allowByDefault", regions): "every region but " + regions
        case let ("allowlistOnly", regions): "only " + regions
        default: "the engine's policy alone"
        }
    }

    static func factorsText(_ factors: JSONValue?) -> String {
        guard let kinds = factors?.arrayValue?.compactMap(\.stringValue) else { return "every kind" }
        return kinds.isEmpty ? "none" : kinds.joined(separator: ", ")
    }

    static func appNameText(_ name: JSONValue?) -> String {
        name?.stringValue ?? "the engine's sms.appName"
    }

    /// A setting the console does not edit: "the engine's" when unset, else its JSON as a list.
    static func engineOr(_ setting: JSONValue?) -> String {
        guard let setting, setting != .null else { return "the engine's" }
        return ConsoleFormat.definitions(setting)
    }
}
