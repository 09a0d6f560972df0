import PhoneAuthCore
import PhoneAuthKit

/// The admin half of the dialect, under `/v1/projects/{projectId}/`: what firebase-admin calls
/// for user management. The caller has shown an admin token before any of this runs. Under
/// `/v1/projects/{projectId}/tenants/{tenantId}/` `auth` is that tenant's view (PhoneAuthKit's
/// `tenant(_:)`), so every operation works in the tenant.
struct IdentityToolkitAdmin: Sendable {
    let auth: PhoneAuth

    func handle(_ operation: String, _ call: ToolkitCall, query: [(String, String)]) async throws -> JSONValue {
        switch operation {
        case "accounts:lookup": return try await lookup(call)
        case "accounts:batchGet": return try await batchGet(query)
        case "accounts": return try await create(call)
        case "accounts:update": return try await update(call)
        case "accounts:delete": return try await delete(call)
        case "accounts:batchDelete": return try await batchDelete(call)
        case "accounts:batchCreate": return try await batchCreate(call)
        default: throw ToolkitError(404, "NOT_FOUND", "No such admin operation.")
        }
    }

    /// Up to 100 identifiers; the users found, in no promised order; no `users` when none is.
    private func lookup(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["localId", "phoneNumber", "idToken"])
        let uids = try IdentityToolkit.names(r, "localId"), phones = try IdentityToolkit.names(r, "phoneNumber")
        guard uids.count + phones.count <= 100 else {
            throw ToolkitError(400, "INVALID_ARGUMENT", "At most 100 identifiers per lookup.")
        }
        var found: [User] = []
        for uid in uids {
            if let user = try await absentIfNotFound({ try await auth.user(uid: uid) }) { found.append(user) }
        }
        for phone in phones {
            if let user = try await absentIfNotFound({ try await auth.user(phoneNumber: phone) }) { found.append(user) }
        }
        if let idToken = try r.string("idToken") {
            let uid = try await auth.verifyIDToken(idToken, checkRevoked: false).uid
            if let user = try await absentIfNotFound({ try await auth.user(uid: uid) }) { found.append(user) }
        }
        var seen = Set<String>()
        let users = found.filter { seen.insert($0.uid).inserted }
        var o = JSONObjectBuilder()
        o.set("kind", .string("identitytoolkit#GetAccountInfoResponse"))
        if !users.isEmpty { o.set("users", .array(users.map(\.record.identityToolkitJSON))) }
        return o.value
    }

    private func absentIfNotFound(_ body: () async throws -> User) async throws -> User? {
        do { return try await body() } catch let error as PhoneAuthError
            where error.code == .userNotFound || error.code == .invalidPhoneNumber
        {
            return nil
        }
    }

    private func batchGet(_ query: [(String, String)]) async throws -> JSONValue {
        let value = { (name: String) in query.first(where: { $0.0 == name })?.1 }
        var max = 1000
        if let text = value("maxResults") {
            guard let n = Int(text), (1...1000).contains(n) else {
                throw ToolkitError(400, "INVALID_ARGUMENT", "maxResults must be 1 to 1000.")
            }
            max = n
        }
        let token = value("nextPageToken").flatMap { $0.isEmpty ? nil : $0 }, limit = max
        let page = try await auth.listUsers(maxResults: limit, pageToken: token)
        var o = JSONObjectBuilder()
        o.set("kind", .string("identitytoolkit#DownloadAccountResponse"))
        o.set("users", .array(page.users.map(\.record.identityToolkitJSON)))
        o.set("nextPageToken", page.nextPageToken.map { .string($0) })
        return o.value
    }

    private func create(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["localId", "displayName", "phoneNumber", "disabled"])
        let uid = try r.string("localId"), name = try r.string("displayName"), phone = try r.string("phoneNumber")
        let disabled = try r.bool("disabled") ?? false
        let user = try await auth.createUser(uid: uid, phoneNumber: phone, displayName: name, disabled: disabled)
        return .object([("kind", .string("identitytoolkit#SignupNewUserResponse")), ("localId", .string(user.uid))])
    }

    /// update_user, set_custom_user_claims and revoke_refresh_tokens all land here.
    private func update(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader([
            "localId", "disableUser", "displayName", "phoneNumber", "deleteProvider", "deleteAttribute",
            "customAttributes", "validSince",
        ])
        guard let uid = try r.string("localId"), !uid.isEmpty else { throw ToolkitError(400, "MISSING_LOCAL_ID") }
        let (displayName, deletesPhone) = try IdentityToolkit.accountChanges(r)
        var phone: String?? = deletesPhone ? .some(nil) : nil
        if let number = try r.string("phoneNumber") { phone = .some(number) }
        let disabled = try r.bool("disableUser")
        let claims = try Self.claims(r)
        let revoke = r.value("validSince") != nil
        _ = try await auth.updateUser(
            uid: uid, disabled: disabled, displayName: displayName, phoneNumber: phone,
            customClaimsJSON: claims)
        if revoke { try await auth.revokeRefreshTokens(uid: uid) }
        return .object([("kind", .string("identitytoolkit#SetAccountInfoResponse")), ("localId", .string(uid))])
    }

    /// `customAttributes`: the claims as JSON text, at most 1000 characters; "{}" clears them.
    private static func claims(_ r: ObjectReader) throws -> String?? {
        guard let text = try r.string("customAttributes") else { return nil }
        guard text.utf8.count <= 1000 else { throw ToolkitError(400, "CLAIMS_TOO_LARGE") }
        guard let claims = try? JSONCodec.parse(text), case .object = claims else {
            throw ToolkitError(400, "INVALID_CLAIMS", "customAttributes must be a JSON object's text.")
        }
        return .some(text)
    }

    private func delete(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["localId"])
        guard let uid = try r.string("localId"), !uid.isEmpty else { throw ToolkitError(400, "MISSING_LOCAL_ID") }
        try await auth.deleteUser(uid: uid)
        return .object([("kind", .string("identitytoolkit#DeleteAccountResponse"))])
    }

    /// Deletes one user of a batch, or says why not; a uid with no user counts as deleted.
    private func delete(_ uid: String, index: Int, force: Bool) async throws -> JSONValue? {
        do {
            if !force, try await auth.user(uid: uid).disabled == false {
                return .object([
                    ("index", .int(Int64(index))), ("localId", .string(uid)),
                    ("message", .string("NOT_DISABLED : Disable the account before batch deletion.")),
                ])
            }
            try await auth.deleteUser(uid: uid)
        } catch {
            guard error.code == .userNotFound else { throw error }
        }
        return nil
    }

    /// Deletes up to 1000 users; a uid with no user counts as deleted. Without `force`, a user
    /// that is not disabled is refused (as Firebase does), reported by its index.
    private func batchDelete(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["localIds", "force"])
        let uids = try IdentityToolkit.names(r, "localIds"), force = try r.bool("force") ?? false
        guard uids.count <= 1000 else {
            throw ToolkitError(400, "INVALID_ARGUMENT", "At most 1000 uids per batchDelete.")
        }
        var errors: [JSONValue] = []
        for (index, uid) in uids.enumerated() {
            if let refusal = try await delete(uid, index: index, force: force) { errors.append(refusal) }
        }
        return errors.isEmpty ? .object([]) : .object([("errors", .array(errors))])
    }

    /// import_users: the engine's importUsers (the records are auth:export's format), each record
    /// that cannot be imported reported by its index in `error` (one naming another `tenantId`
    /// too, in the engine's words, which have firebase-admin Node's "mismatching tenant ID").
    private func batchCreate(_ call: ToolkitCall) async throws -> JSONValue {
        // The hash parameters are for password hashes, which every record here is refused for.
        let r = try call.reader([
            "users", "hashAlgorithm", "signerKey", "saltSeparator", "rounds", "memoryCost", "cpuMemCost",
            "parallelization", "blockSize", "dkLen", "passwordHashOrder", "allowOverwrite", "sanityCheck",
        ])
        guard case let .array(users)? = r.value("users") else {
            throw ToolkitError(400, "MISSING_USER_ACCOUNT", "The field 'users' (an array of user records) is required.")
        }
        guard users.count <= PhoneAuth.maxImportUsers else {
            throw ToolkitError(400, "INVALID_ARGUMENT", "At most \(PhoneAuth.maxImportUsers) users per batchCreate.")
        }
        var errors: [(index: Int, message: String)] = []
        if !users.isEmpty {
            // The engine refuses, per user, one of another tenant (its message says "mismatching tenant ID").
            let result = try await Self.engineCall(auth, "importUsers", [("users", .array(users))])
            for case let refusal in result["errors"]?.arrayValue ?? [] {
                guard let at = refusal["index"]?.intValue, users.indices.contains(Int(at)) else { continue }
                errors.append((Int(at), refusal["message"]?.stringValue ?? ""))
            }
        }
        var o = JSONObjectBuilder()
        o.set("kind", .string("identitytoolkit#UploadAccountResponse"))
        if !errors.isEmpty {
            o.set(
                "error",
                .array(
                    errors.sorted { $0.index < $1.index }.map {
                        .object([("index", .int(Int64($0.index))), ("message", .string($0.message))])
                    }))
        }
        return o.value
    }

    /// One of the engine's JSON methods through `auth` (a tenant's view adds its `tenantId`); its
    /// error as Identity Toolkit answers it.
    static func engineCall(
        _ auth: PhoneAuth, _ method: String, _ params: [(String, JSONValue)]
    ) async throws
        -> JSONValue
    {
        let (status, json) = await auth.call(method, paramsJSON: JSONCodec.serialize(.object(params)))
        let value = (try? JSONCodec.parse(json)) ?? .object([])
        guard status == 0 else {
            let error = value["error"]
            let code = error?["code"]?.stringValue.flatMap(PhoneAuthCore.PhoneAuthError.Code.init(rawValue:))
            let details: [(String, JSONValue)] =
                if case let .object(details)? = error?["details"] { details } else { [] }
            throw ToolkitError(
                PhoneAuthCore.PhoneAuthError(
                    code ?? .internalError, error?["message"]?.stringValue ?? "", details: details))
        }
        return value
    }
}
