import PhoneAuthCore
import PhoneAuthKit

/// Identity Platform's tenant resource, `/v2/projects/{projectId}/tenants[/{tenantId}]`, as
/// firebase-admin's TenantManager calls it, over PhoneAuthKit's typed tenant methods.
/// A Tenant's JSON maps to the engine's settings: `testPhoneNumbers` as is, `smsRegionConfig` to
/// `smsRegionPolicy` (the same shape), `mfaConfig` to `secondFactors` (PHONE_SMS in
/// `enabledProviders` with state ENABLED: "phone"; an ENABLED `totpProviderConfig`: "totp"),
/// `recaptchaConfig`'s phone fields to `pumping.tollFraud` (its mode and allow lists, which a
/// Tenant does not have, are kept).
/// PhoneAuth signs in by phone only: password, email-link and anonymous sign-in cannot be turned
/// on, and the configurations of what it does not have are refused. The caller has shown an
/// admin token before any of this runs.
struct TenantAdmin: Sendable {
    let auth: PhoneAuth
    let projectId: String

    /// Identity Platform's default page size for tenants.
    static let defaultPageSize = 20

    func handle(
        _ operation: String, _ call: ToolkitCall, tenant: String?, query: [(String, String)]
    ) async throws
        -> JSONValue
    {
        let id = tenant ?? ""
        switch operation {
        case "tenants:create": return try await create(call)
        case "tenants:get": return tenantJSON(try await auth.getTenant(id))
        case "tenants:patch": return try await patch(id, call, query: query)
        case "tenants:delete":
            try await auth.deleteTenant(id)
            return .object([])
        case "tenants:list": return try await list(query)
        default: throw ToolkitError(404, "NOT_FOUND", "No such tenant operation.")
        }
    }

    /// The view of tenant `id` for its users' routes; a malformed ID is no tenant.
    static func view(_ auth: PhoneAuth, _ id: String) throws -> PhoneAuth {
        do { return try auth.tenant(id) } catch {
            throw ToolkitError(404, "TENANT_NOT_FOUND", "There is no tenant of that ID.")
        }
    }

    // MARK: Operations

    private func create(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try Self.tenantReader(call)
        var params: [(String, JSONValue)] = []
        if let name = try r.string("displayName") { params.append(("displayName", .string(name))) }
        // As Identity Platform: what the body leaves out is off (second factors too).
        params += try Self.settings(r, paths: nil, current: nil)
        return tenantJSON(try await auth.createTenant(try Self.changes(params, creating: true)))
    }

    /// `updateMask` names the fields to change (dotted paths, as firebase-admin builds them);
    /// without one, every settable field takes the body's value (or its default).
    private func patch(_ id: String, _ call: ToolkitCall, query: [(String, String)]) async throws -> JSONValue {
        let r = try Self.tenantReader(call)
        let mask = query.first(where: { $0.0 == "updateMask" })?.1 ?? ""
        let paths = mask.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        let known: Set<String> = Self.tenantFields.subtracting(["name"])
        if let unknown = paths.first(where: { !known.contains(String($0.prefix(while: { $0 != "." }))) }) {
            throw ToolkitError(
                400, "INVALID_ARGUMENT",
                "updateMask names \(Echo.quoted(unknown, or: "a field")), which a tenant does not have here.")
        }
        let current = try await auth.getTenant(id)
        var params: [(String, JSONValue)] = []
        if paths.isEmpty || paths.contains("displayName"), let name = try r.string("displayName") {
            params.append(("displayName", .string(name)))
        }
        params += try Self.settings(r, paths: paths.isEmpty ? nil : Set(paths), current: current)
        return tenantJSON(try await auth.updateTenant(id, try Self.changes(params, creating: false)))
    }

    private func list(_ query: [(String, String)]) async throws -> JSONValue {
        let value = { (name: String) in query.first(where: { $0.0 == name })?.1 }
        var size = Self.defaultPageSize
        if let text = value("pageSize") {
            guard let n = Int(text), (1...1000).contains(n) else {
                throw ToolkitError(400, "INVALID_ARGUMENT", "pageSize must be 1 to 1000.")
            }
            size = n
        }
        let token = value("pageToken").flatMap { $0.isEmpty ? nil : $0 }
        let page = try await auth.listTenants(maxResults: size, pageToken: token)
        var o = JSONObjectBuilder()
        o.set("tenants", .array(page.tenants.map(tenantJSON)))
        o.set("nextPageToken", page.nextPageToken.map { .string($0) })
        return o.value
    }

    // MARK: The Tenant JSON

    /// The Tenant fields read here; others (Identity Platform's configurations of what PhoneAuth
    /// does not have: passwordPolicyConfig, emailPrivacyConfig, …) are refused, and so are
    /// recaptchaConfig's fields but its phone ones.
    static let tenantFields: Set<String> = [
        "name", "displayName", "allowPasswordSignup", "enableEmailLinkSignin", "enableAnonymousUser", "disableAuth",
        "autodeleteAnonymousUsers", "testPhoneNumbers", "smsRegionConfig", "mfaConfig", "recaptchaConfig",
    ]

    /// The body, checked for what PhoneAuth cannot honour.
    private static func tenantReader(_ call: ToolkitCall) throws -> ObjectReader {
        let r = try ObjectReader(call.body)
        if let other = r.entries.first(where: { !tenantFields.contains($0.0) })?.0 {
            throw ToolkitError(
                400, "INVALID_ARGUMENT",
                "PhoneAuth signs in by phone only and has no \(Echo.quoted(other, or: "such field")) for tenants.")
        }
        for field in ["allowPasswordSignup", "enableEmailLinkSignin", "enableAnonymousUser"]
        where try r.bool(field) == true {
            throw ToolkitError(400, "INVALID_ARGUMENT", "PhoneAuth signs in by phone only: \(field) cannot be true.")
        }
        if try r.bool("disableAuth") == true {
            throw ToolkitError(
                400, "INVALID_ARGUMENT", "PhoneAuth cannot disable a tenant: disableAuth cannot be true.")
        }
        _ = try r.bool("autodeleteAnonymousUsers")
        return r
    }

    /// The typed changes of the engine's createTenant/updateTenant parameters `params`, read
    /// (and refused) as those methods read them.
    private static func changes(_ params: [(String, JSONValue)], creating: Bool) throws -> PhoneAuthKit.TenantChanges {
        PhoneAuthKit.TenantChanges(
            try PhoneAuthCore.TenantChanges(try ObjectReader(.object(params)), creating: creating))
    }

    /// The engine's settings from the body: those `paths` names (any path under a field names it),
    /// or every one when nil (a field the body leaves out is cleared). `current` is the tenant as
    /// it is, for a mask that names half of the phone factor's switch.
    private static func settings(
        _ r: ObjectReader, paths: Set<String>?, current: PhoneAuthKit.Tenant?
    ) throws -> [(
        String, JSONValue
    )] {
        // A path names a field when it is the field, a path inside it or a field around it.
        func named(_ field: String) -> Bool {
            paths.map { $0.contains { $0 == field || $0.hasPrefix(field + ".") || field.hasPrefix($0 + ".") } } ?? true
        }
        var params: [(String, JSONValue)] = []
        if named("testPhoneNumbers") {
            params.append(("testPhoneNumbers", r.value("testPhoneNumbers") ?? .object([])))
        }
        if named("smsRegionConfig") { params.append(("smsRegionPolicy", r.value("smsRegionConfig") ?? .null)) }
        let mfa = try r.object("mfaConfig") ?? ObjectReader(.object([]))
        try mfa.rejectUnknown(["state", "enabledProviders", "providerConfigs"])
        let now = current.map { factors(of: $0.secondFactors) } ?? (phone: false, totp: false)
        // The phone factor: state ENABLED with PHONE_SMS among the providers.
        var phone = now.phone
        if named("mfaConfig.state") || named("mfaConfig.enabledProviders") {
            let state =
                try paths == nil || named("mfaConfig.state")
                ? mfa.string("state") : (now.phone ? "ENABLED" : "DISABLED")
            let providers =
                paths == nil || named("mfaConfig.enabledProviders")
                ? try IdentityToolkit.names(mfa, "enabledProviders") : (now.phone ? ["PHONE_SMS"] : [])
            if let unknown = providers.first(where: { $0 != "PHONE_SMS" && $0 != "PROVIDER_UNSPECIFIED" }) {
                throw ToolkitError(
                    400, "INVALID_ARGUMENT",
                    "mfaConfig.enabledProviders may list PHONE_SMS only, not \(Echo.quoted(unknown, or: "that")).")
            }
            phone = try isEnabled(state, "mfaConfig.state") && providers.contains("PHONE_SMS")
        }
        // TOTP: an ENABLED providerConfigs entry with a totpProviderConfig.
        var totp = now.totp
        if named("mfaConfig.providerConfigs") {
            totp = false
            for (index, item) in (mfa.value("providerConfigs")?.arrayValue ?? []).enumerated() {
                let path = "mfaConfig.providerConfigs[\(index)]"
                let config = try ObjectReader(item, path: path)
                try config.rejectUnknown(["state", "totpProviderConfig"])
                guard let totpConfig = try config.object("totpProviderConfig") else {
                    throw ToolkitError(400, "INVALID_ARGUMENT", "\(path) must be a totpProviderConfig.")
                }
                try totpConfig.rejectUnknown(["adjacentIntervals"])
                // The engine's TOTP window applies; the count is checked as Identity Platform does.
                _ = try totpConfig.int("adjacentIntervals", in: 0...10)
                if try isEnabled(config.string("state"), "\(path).state") { totp = true }
            }
        }
        if paths == nil || named("mfaConfig.state") || named("mfaConfig.enabledProviders")
            || named("mfaConfig.providerConfigs")
        {
            let kinds = (phone ? ["phone"] : []) + (totp ? ["totp"] : [])
            params.append(("secondFactors", .array(kinds.map { .string($0) })))
        }
        if named("recaptchaConfig") { params.append(("pumping", try pumping(r, named: named, current: current))) }
        return params
    }

    /// The tenant's `pumping` with `recaptchaConfig`'s phone fields as its `tollFraud`: each field
    /// the mask names (or every one, without a mask) from the body, the others as they are.
    private static func pumping(
        _ r: ObjectReader, named: (String) -> Bool, current: PhoneAuthKit.Tenant?
    ) throws -> JSONValue {
        let fields = TollFraudPolicy.fields
        let given = try r.object("recaptchaConfig") ?? ObjectReader(.object([]))
        let before = current?.record.json["pumping"]
        var tollFraud: [(String, JSONValue)] = []
        for field in fields {
            let value = named("recaptchaConfig.\(field)") ? given.value(field) : before?["tollFraud"]?[field]
            if let value { tollFraud.append((field, value)) }
        }
        // The other fields are refused by name, checked as the engine's settings are.
        let known = Set(fields)
        if let other = given.entries.first(where: { !known.contains($0.0) })?.0 {
            throw ToolkitError(
                400, "INVALID_ARGUMENT",
                "PhoneAuth has only recaptchaConfig's phone fields (\(fields.joined(separator: ", "))), not "
                    + "\(Echo.quoted(other, or: "that field")).")
        }
        var pumping = (before?.objectPairs ?? []).filter { $0.0 != "tollFraud" && $0.1 != .null }
        if !tollFraud.isEmpty { pumping.append(("tollFraud", .object(tollFraud))) }
        return pumping.isEmpty ? .null : .object(pumping)
    }

    /// ENABLED or not; MANDATORY is refused (PhoneAuth never requires a second factor).
    private static func isEnabled(_ state: String?, _ field: String) throws -> Bool {
        switch state ?? "DISABLED" {
        case "ENABLED": return true
        case "DISABLED", "STATE_UNSPECIFIED", "MFA_STATE_UNSPECIFIED": return false
        case "MANDATORY":
            throw ToolkitError(
                400, "INVALID_ARGUMENT", "PhoneAuth cannot make second factors mandatory: \(field) cannot be MANDATORY."
            )
        default:
            throw ToolkitError(400, "INVALID_ARGUMENT", "\(field) must be ENABLED or DISABLED.")
        }
    }

    /// A tenant's second factors (nil: every kind).
    private static func factors(of kinds: Set<SecondFactorKind>?) -> (phone: Bool, totp: Bool) {
        guard let kinds else { return (true, true) }
        return (kinds.contains(.phone), kinds.contains(.totp))
    }

    /// The tenant as Identity Platform's Tenant.
    private func tenantJSON(_ tenant: PhoneAuthKit.Tenant) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("name", .string("projects/\(projectId)/tenants/\(tenant.tenantID)"))
        o.set("displayName", .string(tenant.displayName))
        o.set("allowPasswordSignup", .bool(false))
        o.set("enableEmailLinkSignin", .bool(false))
        o.set("enableAnonymousUser", .bool(false))
        let (phone, totp) = Self.factors(of: tenant.secondFactors)
        var mfa = JSONObjectBuilder()
        mfa.set("state", .string(phone ? "ENABLED" : "DISABLED"))
        if phone { mfa.set("enabledProviders", .array([.string("PHONE_SMS")])) }
        if totp {
            mfa.set(
                "providerConfigs",
                .array([.object([("state", .string("ENABLED")), ("totpProviderConfig", .object([]))])]))
        }
        o.set("mfaConfig", mfa.value)
        // The settings as the engine's JSON writes them (numbers in order, regions sorted).
        let settings = tenant.record.json
        if !tenant.testPhoneNumbers.isEmpty { o.set("testPhoneNumbers", settings["testPhoneNumbers"]) }
        if tenant.smsRegionPolicy != nil { o.set("smsRegionConfig", settings["smsRegionPolicy"]) }
        if let tollFraud = settings["pumping"]?["tollFraud"], tollFraud != .null { o.set("recaptchaConfig", tollFraud) }
        return o.value
    }
}
