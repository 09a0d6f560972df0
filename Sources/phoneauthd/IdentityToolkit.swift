import PhoneAuthCore
import PhoneAuthKit

/// One Identity Toolkit request: its JSON body, the end user's address, User-Agent and language.
struct ToolkitCall: Sendable {
    let body: JSONValue
    let clientIp: String
    let userAgent: String
    let languageCode: String?

    func reader(_ known: Set<String>) throws -> ObjectReader {
        let r = try ObjectReader(body)
        // Fields Firebase's clients send that mean nothing here (`tenantId` is read by `tenantId`).
        try r.rejectUnknown(
            known.union(["returnSecureToken", "clientType", "recaptchaVersion", "targetProjectId", "tenantId"]))
        return r
    }

    /// The body's `tenantId` (the JS and iOS SDKs' `auth.tenantId`); nil when absent or "".
    var tenantId: String? {
        get throws {
            guard let value = body["tenantId"], value != .null else { return nil }
            guard let text = value.stringValue else {
                throw ToolkitError(400, "INVALID_TENANT_ID", "The field 'tenantId' must be a string.")
            }
            return text.isEmpty ? nil : text
        }
    }
}

/// The client half of the Identity Toolkit dialect (what the iOS and JS SDKs call): each
/// operation by its v1 name, turned into engine calls and answered in Firebase's shapes.
struct IdentityToolkit: Sendable {
    /// The engine, or in `handle` the view of the request's tenant.
    private(set) var auth: PhoneAuth
    let projectId: String
    /// How long a temporary proof works (the engine's `temporaryProofTtlSeconds`).
    let temporaryProofTtlSeconds: Int64
    let authorizedDomains: [String]
    let emulator: EmulatorSupport?
    /// The built-in captcha verifier's service, whose site key the captcha reads answer.
    let captcha: CaptchaProviderSettings?

    /// The iOS SDK's v3 relyingparty names, by their v1 operations.
    static let legacyNames: [String: String] = [
        "sendVerificationCode": "sendVerificationCode", "verifyPhoneNumber": "signInWithPhoneNumber",
        "getAccountInfo": "lookup", "deleteAccount": "delete", "setAccountInfo": "update",
        "verifyCustomToken": "signInWithCustomToken", "getProjectConfig": "getProjectConfig",
        "verifyClient": "verifyClient", "getRecaptchaParam": "recaptchaParams",
    ]

    /// Runs `operation` in the body's tenant (`tenantId`), or the default pool without one; the
    /// operations that take an ID token work in the token's tenant, which `tenantId` must name.
    func handle(_ operation: String, _ call: ToolkitCall) async throws -> JSONValue {
        var scoped = self
        do {
            if let tenant = try call.tenantId { scoped.auth = try auth.tenant(tenant) }
            return try await scoped.perform(operation, call)
        } catch let error as PhoneAuthError {
            if let refusal = Self.tenantRefusal(error) { throw refusal }
            throw error
        }
    }

    /// A tenant failure as Identity Platform's client endpoints word it: a tenant that does not
    /// exist (or cannot) is INVALID_TENANT_ID; another tenant's ID token is TENANT_ID_MISMATCH.
    private static func tenantRefusal(_ error: PhoneAuthError) -> ToolkitError? {
        let reason = error.core.detail("reason")?.stringValue
        switch error.code {
        case .tenantNotFound: return ToolkitError(400, "INVALID_TENANT_ID", error.message)
        case .invalidArgument where reason == "invalidTenantId":
            return ToolkitError(400, "INVALID_TENANT_ID", error.message)
        case .invalidIdToken where reason == "wrongTenant":
            return ToolkitError(400, "TENANT_ID_MISMATCH", "The ID token is of another tenant than tenantId.")
        default: return nil
        }
    }

    private func perform(_ operation: String, _ call: ToolkitCall) async throws -> JSONValue {
        switch operation {
        case "sendVerificationCode": return try await sendVerificationCode(call)
        case "signInWithPhoneNumber": return try await signInWithPhoneNumber(call)
        case "lookup": return try await lookup(call)
        case "delete": return try await delete(call)
        case "update": return try await update(call)
        case "signInWithCustomToken": return try await signInWithCustomToken(call)
        case "getProjectConfig":
            return .object([
                ("projectId", .string(projectId)), ("authorizedDomains", .array(authorizedDomains.map { .string($0) })),
            ])
        case "verifyClient": return try await verifyClient(call)
        case "recaptchaParams": return try recaptchaParams()
        case "recaptchaConfig": return try await recaptchaConfig()
        case "token": return try await refresh(call)
        case "mfaEnrollment:start": return try await enrollStart(call)
        case "mfaEnrollment:finalize": return try await enrollFinalize(call)
        case "mfaEnrollment:withdraw": return try await withdraw(call)
        case "mfaSignIn:start": return try await mfaSignInStart(call)
        case "mfaSignIn:finalize": return try await mfaSignInFinalize(call)
        case "passkeyEnrollment:start": return try await passkeyEnrollmentStart(call)
        case "passkeyEnrollment:finalize": return try await passkeyEnrollmentFinalize(call)
        case "passkeySignIn:start": return try await passkeySignInStart(call)
        case "passkeySignIn:finalize": return try await passkeySignInFinalize(call)
        default: throw ToolkitError(404, "NOT_FOUND", "No such operation.")
        }
    }

    private func sendVerificationCode(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader([
            "phoneNumber", "iosReceipt", "iosSecret", "recaptchaToken", "captchaResponse", "playIntegrityToken",
            "autoRetrievalInfo",
        ])
        let phone = try r.string("phoneNumber") ?? "", proof = try Self.appVerification(r)
        let started = try await auth.verifyPhoneNumber(
            phone, languageCode: call.languageCode, clientIP: call.clientIp, userAgent: call.userAgent,
            appVerification: proof)
        await emulator?.awaitCode(of: started.verificationID, auth: auth, messageOwed: started.channel != nil)
        return .object([("sessionInfo", .string(started.verificationID))])
    }

    /// verifyPhoneNumber: signs in, or links, updates or re-authenticates the `idToken`'s user.
    /// A number another account has answers 200 with a temporary proof (the SDKs raise
    /// credentialAlreadyInUse); a user with second factors answers the pending credential.
    private func signInWithPhoneNumber(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["sessionInfo", "code", "idToken", "temporaryProof", "phoneNumber", "operation"])
        let idToken = try r.string("idToken").flatMap { $0.isEmpty ? nil : $0 }
        let operation = try r.string("operation") ?? (idToken == nil ? "SIGN_UP_OR_IN" : "LINK")
        let given: PhoneCredential
        if let proof = try r.string("temporaryProof") {
            guard let parsed = PhoneCredential(temporaryProof: proof) else {
                throw ToolkitError(400, "INVALID_TEMPORARY_PROOF")
            }
            given = parsed
        } else {
            given = try PhoneAuth.credential(
                verificationID: try r.string("sessionInfo") ?? "", verificationCode: try r.string("code") ?? "")
        }
        let (ip, agent) = (call.clientIp, call.userAgent)
        do {
            let result: SignInResult
            switch (operation, idToken) {
            case ("SIGN_UP_OR_IN", _), ("REAUTH", nil):
                result = try await auth.signIn(with: given, clientIP: ip, userAgent: agent)
            case let ("LINK", token?):
                result = try await auth.link(idToken: token, credential: given, clientIP: ip, userAgent: agent)
            case let ("UPDATE", token?):
                result = try await auth.updatePhoneNumber(
                    idToken: token, credential: given, clientIP: ip, userAgent: agent)
            case let ("REAUTH", token?):
                result = try await auth.reauthenticate(
                    idToken: token, credential: given, clientIP: ip, userAgent: agent)
            case ("LINK", nil), ("UPDATE", nil):
                throw ToolkitError(400, "MISSING_ID_TOKEN", "Linking or updating a number needs the user's idToken.")
            default:
                throw ToolkitError(
                    400, "INVALID_ARGUMENT", "The field 'operation' must be SIGN_UP_OR_IN, REAUTH, LINK or UPDATE.")
            }
            return FirebaseShapes.signIn(result, kind: "VerifyPhoneNumberResponse")
        } catch let error as PhoneAuthError where error.code == .credentialAlreadyInUse {
            var o = JSONObjectBuilder()
            o.set("temporaryProof", .string(error.temporaryProof ?? ""))
            o.set("temporaryProofExpiresIn", .string(String(temporaryProofTtlSeconds)))
            o.set("phoneNumber", error.phoneNumber.map { .string($0) })
            return o.value
        } catch let error as PhoneAuthError {
            guard let challenge = error.multiFactorChallenge else { throw error }
            return FirebaseShapes.pendingCredential(challenge)
        }
    }

    /// The signed-in user of an ID token: USER_NOT_FOUND once deleted, TOKEN_EXPIRED once revoked;
    /// with the view of the token's tenant (the JS SDK sends these calls without `tenantId`).
    private func signedIn(_ idToken: String?) async throws -> (uid: String, auth: PhoneAuth) {
        guard let idToken, !idToken.isEmpty else { throw ToolkitError(400, "MISSING_ID_TOKEN") }
        let token = try await auth.verifyIDToken(idToken, checkRevoked: true)
        guard !token.uid.isEmpty else { throw ToolkitError(400, "INVALID_ID_TOKEN") }
        return (token.uid, try token.tenantID.map { try auth.tenant($0) } ?? auth)
    }

    private func lookup(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["idToken"])
        let (uid, auth) = try await signedIn(try r.string("idToken"))
        let user = try await auth.user(uid: uid).record.identityToolkitJSON
        return .object([("kind", .string("identitytoolkit#GetAccountInfoResponse")), ("users", .array([user]))])
    }

    private func delete(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["idToken"])
        let (uid, auth) = try await signedIn(try r.string("idToken"))
        try await auth.deleteUser(uid: uid)
        return .object([("kind", .string("identitytoolkit#DeleteAccountResponse"))])
    }

    /// setAccountInfo from the user: the display name, removing the phone number, and removing
    /// passkeys (`deletePasskey`, their credential IDs).
    private func update(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["idToken", "displayName", "deleteAttribute", "deleteProvider", "deletePasskey"])
        let idToken = try r.string("idToken") ?? ""
        let (uid, auth) = try await signedIn(idToken)
        let (displayName, deletesPhone) = try Self.accountChanges(r)
        try await deletePasskeys(try Self.names(r, "deletePasskey"), idToken: idToken, auth: auth)
        var user = try await auth.user(uid: uid)
        if deletesPhone { user = try await auth.unlinkPhoneNumber(idToken: idToken) }
        if let displayName { user = try await auth.updateUser(uid: uid, displayName: displayName) }
        var o = JSONObjectBuilder()
        o.set("kind", .string("identitytoolkit#SetAccountInfoResponse"))
        for (key, value) in user.record.identityToolkitJSON.objectPairs
        where ["localId", "phoneNumber", "displayName", "providerUserInfo"].contains(key) {
            o.set(key, value)
        }
        return o.value
    }

    private func signInWithCustomToken(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["token"])
        guard var token = try r.string("token"), !token.isEmpty else { throw ToolkitError(400, "MISSING_CUSTOM_TOKEN") }
        if let emulator, let resigned = try await emulator.resign(unsignedCustomToken: token, auth: auth) {
            token = resigned
        }
        let given = token
        let result = try await auth.signIn(withCustomToken: given)
        return FirebaseShapes.signIn(result, kind: "VerifyCustomTokenResponse")
    }

    private func verifyClient(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["appToken", "isSandbox"])
        let appToken = try r.string("appToken") ?? "", type = try r.bool("isSandbox") == true ? "sandbox" : "prod"
        let (receipt, timeout) = try await auth.verifyClient(
            appToken: appToken, tokenType: type, clientIP: call.clientIp)
        return .object([("receipt", .string(receipt)), ("suggestedTimeout", .string(String(timeout)))])
    }

    /// securetoken.googleapis.com/v1/token: the answer in snake_case, as that service writes it.
    private func refresh(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["grantType", "grant_type", "refreshToken", "refresh_token"])
        let grant = try r.string("grantType") ?? r.string("grant_type")
        guard grant == "refresh_token" else {
            throw ToolkitError(400, "INVALID_GRANT_TYPE", "grant_type must be refresh_token.")
        }
        guard let token = try r.string("refreshToken") ?? r.string("refresh_token"), !token.isEmpty else {
            throw ToolkitError(400, "MISSING_REFRESH_TOKEN")
        }
        let result = try await auth.refreshIDToken(token)
        return .object([
            ("access_token", .string(result.idToken)), ("expires_in", .string(String(result.expiresIn))),
            ("token_type", .string("Bearer")),
            ("refresh_token", .string(result.refreshToken)), ("id_token", .string(result.idToken)),
            ("user_id", .string(result.user.uid)),
            ("project_id", .string(projectId)),
        ])
    }

    // MARK: Multi-factor (v2)

    private func enrollStart(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["idToken", "phoneEnrollmentInfo", "totpEnrollmentInfo"])
        guard let info = try r.object("phoneEnrollmentInfo") else {
            throw ToolkitError(
                400, "INVALID_ARGUMENT", "PhoneAuth enrols phone second factors here: phoneEnrollmentInfo is required.")
        }
        try info.rejectUnknown(Self.phoneInfoFields)
        let idToken = try r.string("idToken") ?? "", phone = try info.string("phoneNumber") ?? "",
            proof = try Self.appVerification(info)
        let started = try await auth.startPhoneEnrollment(
            idToken: idToken, phoneNumber: phone, languageCode: call.languageCode,
            clientIP: call.clientIp, userAgent: call.userAgent, appVerification: proof)
        await emulator?.awaitCode(
            of: started.verificationID, auth: auth, idToken: idToken, messageOwed: started.channel != nil)
        return .object([("phoneSessionInfo", .object([("sessionInfo", .string(started.verificationID))]))])
    }

    private func enrollFinalize(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["idToken", "displayName", "phoneVerificationInfo"])
        let idToken = try r.string("idToken") ?? "", displayName = try r.string("displayName")
        let result = try await auth.finishPhoneEnrollment(
            idToken: idToken, credential: try Self.credential(r), displayName: displayName,
            clientIP: call.clientIp, userAgent: call.userAgent)
        return FirebaseShapes.tokens(result)
    }

    private func withdraw(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["idToken", "mfaEnrollmentId"])
        let idToken = try r.string("idToken") ?? ""
        guard let enrollmentId = try r.string("mfaEnrollmentId"), !enrollmentId.isEmpty else {
            throw ToolkitError(400, "MISSING_MFA_ENROLLMENT_ID")
        }
        let result = try await auth.unenroll(idToken: idToken, enrollmentID: enrollmentId)
        return FirebaseShapes.tokens(result)
    }

    /// The iOS SDK sends the hint's masked number: the factor is found by its enrollment ID only.
    private func mfaSignInStart(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["mfaPendingCredential", "mfaEnrollmentId", "phoneSignInInfo"])
        let info = try r.object("phoneSignInInfo")
        try info?.rejectUnknown(Self.phoneInfoFields)
        let session = try r.string("mfaPendingCredential") ?? "", hint = try r.string("mfaEnrollmentId") ?? ""
        let proof = try info.flatMap { try Self.appVerification($0) }
        let started = try await auth.sendSecondFactorCode(
            session: session, enrollmentID: hint, languageCode: call.languageCode,
            clientIP: call.clientIp, userAgent: call.userAgent, appVerification: proof)
        await emulator?.awaitCode(of: started.verificationID, auth: auth, messageOwed: started.channel != nil)
        return .object([("phoneResponseInfo", .object([("sessionInfo", .string(started.verificationID))]))])
    }

    private func mfaSignInFinalize(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["mfaPendingCredential", "phoneVerificationInfo", "mfaEnrollmentId"])
        let session = try r.string("mfaPendingCredential") ?? "", credential = try Self.credential(r),
            (ip, agent) = (call.clientIp, call.userAgent)
        let result = try await auth.resolveSignIn(
            session: session, credential: credential, clientIP: ip, userAgent: agent)
        return FirebaseShapes.tokens(result)
    }

    // MARK: Reading requests

    /// The phone info object of the v2 second-factor starts; the iOS SDK puts an Enterprise
    /// token's `clientType` and `recaptchaVersion` in it too.
    static let phoneInfoFields: Set<String> = [
        "phoneNumber", "iosReceipt", "iosSecret", "recaptchaToken", "captchaResponse", "clientType", "recaptchaVersion",
        "playIntegrityToken", "autoRetrievalInfo", "safetyNetToken",
    ]

    /// `iosReceipt` + `iosSecret` (the silent push's) or a captcha token, as the engine's proof:
    /// `recaptchaToken` (v2) or `captchaResponse` (reCAPTCHA Enterprise, with `clientType` and
    /// `recaptchaVersion`). The SDKs' placeholder `NO_RECAPTCHA` (sent when the Enterprise check is
    /// off or failed, beside another proof) is no token.
    static func appVerification(_ r: ObjectReader) throws -> AppVerification? {
        let tokens = try [r.string("recaptchaToken"), r.string("captchaResponse")].compactMap { $0 }
            .filter { $0 != noRecaptcha }
        guard tokens.count <= 1 else {
            throw ToolkitError(
                400, "INVALID_APP_CREDENTIAL", "Send one captcha token: recaptchaToken or captchaResponse.")
        }
        return try AppVerification(
            receipt: try r.string("iosReceipt"), secret: try r.string("iosSecret"), captchaToken: tokens.first)
    }

    static let noRecaptcha = "NO_RECAPTCHA"

    /// `phoneVerificationInfo: {sessionInfo, code}` as a credential.
    static func credential(_ r: ObjectReader) throws -> PhoneCredential {
        guard let info = try r.object("phoneVerificationInfo") else {
            throw ToolkitError(400, "INVALID_ARGUMENT", "phoneVerificationInfo {sessionInfo, code} is required.")
        }
        try info.rejectUnknown(["sessionInfo", "code", "phoneNumber"])
        return try PhoneAuth.credential(
            verificationID: try info.string("sessionInfo") ?? "", verificationCode: try info.string("code") ?? "")
    }

    /// What setAccountInfo / accounts:update changes of the name and number, as the user's and the
    /// admin's updates read it: `displayName` (`.some(nil)` for DISPLAY_NAME in `deleteAttribute`)
    /// and whether `deleteProvider` removes the phone number; nothing else can be deleted here.
    static func accountChanges(_ r: ObjectReader) throws -> (displayName: String??, deletesPhone: Bool) {
        let deleteAttributes = try names(r, "deleteAttribute"), deleteProviders = try names(r, "deleteProvider")
        if let unknown = deleteAttributes.first(where: { $0 != "DISPLAY_NAME" })
            ?? deleteProviders.first(where: { $0 != "phone" })
        {
            throw ToolkitError(
                400, "INVALID_ARGUMENT", "PhoneAuth cannot delete \(Echo.quoted(unknown, or: "that attribute")).")
        }
        var displayName: String?? = deleteAttributes.isEmpty ? nil : .some(nil)
        if let name = try r.string("displayName") { displayName = .some(name) }
        return (displayName, !deleteProviders.isEmpty)
    }

    static func names(_ r: ObjectReader, _ key: String) throws -> [String] {
        guard let value = r.value(key) else { return [] }
        guard case let .array(items) = value, items.allSatisfy({ $0.stringValue != nil }) else {
            throw ToolkitError(400, "INVALID_ARGUMENT", "The field '\(key)' must be an array of strings.")
        }
        return items.compactMap(\.stringValue)
    }
}
