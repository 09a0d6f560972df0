import HTTPTypes

/// An Identity Toolkit or Secure Token path, in each form a real client sends: with Google's host
/// as the first segment (Firebase's SDKs pointed at an emulator) or without it (a client given a
/// custom endpoint, or Google's discovery documents: the service path, then the method's path).
struct ToolkitRoute {
    private(set) var operation = ""
    private(set) var method = HTTPRequest.Method.post
    /// Set for the admin paths under /v1/projects/{project}/ and /v2/projects/{project}/tenants.
    private(set) var project: String?
    /// The tenant of /v1/projects/{p}/tenants/{t}/accounts… and /v2/projects/{p}/tenants/{t}.
    private(set) var tenant: String?
    /// The methods the path takes, for a 405's Allow (the route's `method` unless it has several).
    private(set) var allow = ""
    /// The Google service the path belongs to (as its errors name it).
    private(set) var service = GoogleService.identityToolkit

    var name: String { project == nil ? "toolkit:\(operation)" : "admin:\(operation)" }

    /// The engine method whose access (docs/API.md, the catalogue) the route takes. A signed-in
    /// user's own lookup, update and deletion prove the user by the ID token, as verifyIdToken does.
    var engineMethod: String {
        Self.clientOperations[operation] ?? Self.multiFactorOperations[operation] ?? Self.adminOperations[operation]
            ?? Self.v3Operations[operation] ?? Self.captchaOperations[operation] ?? Self.tenantOperations[operation]
            ?? ""
    }

    private static let clientOperations = [
        "sendVerificationCode": "verifyPhoneNumber", "signInWithPhoneNumber": "signInWithCredential",
        "lookup": "verifyIdToken",
        "delete": "verifyIdToken", "update": "verifyIdToken", "signInWithCustomToken": "signInWithCustomToken",
    ]
    private static let multiFactorOperations = [
        "mfaEnrollment:start": "mfaEnrollStart", "mfaEnrollment:finalize": "mfaEnrollFinalize",
        "mfaEnrollment:withdraw": "mfaUnenroll", "mfaSignIn:start": "verifyPhoneNumber",
        "mfaSignIn:finalize": "mfaResolveSignIn",
        // Identity Platform's passkeys, under the same v2 accounts path.
        "passkeyEnrollment:start": "startPasskeyEnrollment", "passkeyEnrollment:finalize": "finishPasskeyEnrollment",
        "passkeySignIn:start": "startPasskeySignIn", "passkeySignIn:finalize": "finishPasskeySignIn",
    ]
    private static let adminOperations = [
        "accounts": "createUser", "accounts:lookup": "getUser", "accounts:batchGet": "listUsers",
        "accounts:update": "updateUser",
        "accounts:delete": "deleteUser", "accounts:batchDelete": "deleteUser", "accounts:batchCreate": "importUsers",
    ]
    /// Identity Platform's v2 tenant resource, by the operation each HTTP method performs.
    private static let tenantOperations = [
        "tenants:create": "createTenant", "tenants:list": "listTenants", "tenants:get": "getTenant",
        "tenants:patch": "updateTenant", "tenants:delete": "deleteTenant",
    ]
    /// The operations only the v3 paths (and securetoken) name.
    private static let v3Operations = [
        "getProjectConfig": "getJwks", "verifyClient": "verifyClient", "token": "refreshIdToken",
    ]
    /// Reads of the captcha configuration: client calls (an API key), as getProjectConfig.
    private static let captchaOperations = ["recaptchaParams": "getJwks", "recaptchaConfig": "getJwks"]

    init?(path: String, method requested: HTTPRequest.Method = .post) {
        var rest = Substring(path)
        // The host, when given, must be the one whose service the rest of the path names.
        var host: GoogleService?
        for (prefix, named) in Self.hostPrefixes where rest.utf8.starts(with: prefix.utf8) {
            host = named
            rest = Substring(rest.utf8.dropFirst(prefix.utf8.count - 1))  // the service's path, from its "/"
            break
        }
        if let name = Self.after(Self.relyingParty, in: rest), let op = IdentityToolkit.legacyNames[String(name)] {
            service = .legacyIdentityToolkit
            operation = op
            if op == "getProjectConfig" || op == "recaptchaParams" { method = .get }
        } else if rest == "/v1/token" {
            service = .secureToken
            operation = "token"
        } else if rest == "/v1/recaptchaParams" || rest == "/v2/recaptchaConfig" {
            operation = String(rest.split(separator: "/").last ?? "")
            method = .get
        } else if let name = Self.after("/v1/accounts:", in: rest), Self.clientOperations[String(name)] != nil {
            operation = String(name)
        } else if let name = Self.after("/v2/accounts/", in: rest), Self.multiFactorOperations[String(name)] != nil {
            operation = String(name)
        } else if let admin = Self.after("/v1/projects/", in: rest) {
            var parts = admin.split(
                separator: "/", omittingEmptySubsequences: false
            ).map(String.init)
            // A tenant's users: /v1/projects/{p}/tenants/{t}/accounts…, the same operations in tenant t.
            if parts.count == 4, parts[1] == "tenants", !parts[2].isEmpty {
                tenant = parts[2]
                parts = [parts[0], parts[3]]
            }
            guard parts.count == 2, !parts[0].isEmpty, Self.adminOperations[parts[1]] != nil else { return nil }
            project = parts[0]
            operation = parts[1]
            if operation == "accounts:batchGet" { method = .get }
        } else if let tenants = Self.after("/v2/projects/", in: rest) {
            let parts = tenants.split(
                separator: "/", omittingEmptySubsequences: false
            ).map(String.init)
            guard (2...3).contains(parts.count), !parts[0].isEmpty, parts[1] == "tenants" else { return nil }
            project = parts[0]
            let methods: [(HTTPRequest.Method, String)]
            if parts.count == 3 {
                guard !parts[2].isEmpty else { return nil }
                tenant = parts[2]
                methods = [(.get, "tenants:get"), (.patch, "tenants:patch"), (.delete, "tenants:delete")]
            } else {
                methods = [(.get, "tenants:list"), (.post, "tenants:create")]
            }
            let chosen = methods.first(where: { $0.0 == requested }) ?? methods[0]
            (method, operation) = chosen
            allow = methods.map(\.0.rawValue).joined(separator: ", ")
        } else {
            return nil
        }
        if allow.isEmpty { allow = method.rawValue }
        if let host, host != service { return nil }
    }

    /// The v3 service path, as the discovery document names it (`servicePath`).
    private static let relyingParty = "/identitytoolkit/v3/relyingparty/"

    /// "/host/" of each service, made once: the path's first segment is compared with each.
    private static let hostPrefixes = GoogleService.allCases.map { ("/\($0.host)/", $0) }

    /// What follows `prefix` in `text`, or nil when `text` does not start with it. Byte by byte:
    /// Substring's hasPrefix and dropFirst walk characters, which cost more than the rest of the
    /// route together.
    private static func after(_ prefix: String, in text: Substring) -> Substring? {
        guard text.utf8.starts(with: prefix.utf8) else { return nil }
        return Substring(text.utf8.dropFirst(prefix.utf8.count))
    }
}
