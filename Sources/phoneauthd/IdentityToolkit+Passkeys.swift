import PhoneAuthCore
import PhoneAuthKit

/// Identity Platform's passkey routes (v2 `passkeyEnrollment:start|finalize`,
/// `passkeySignIn:start|finalize`) on the engine's passkeys. The options are answered in Google's
/// schema (`credentialType` "PUBLIC_KEY", `alg` a string); each finalize takes Google's response
/// object or, under the same field (as Firebase's web SDK sends it), the browser's own
/// `PublicKeyCredential.toJSON()`. Bytes may come in base64 or base64url, padded or not: they
/// reach the engine in base64url. A refusal of the passkey itself is 400 INVALID_PASSKEY.
extension IdentityToolkit {
    func passkeyEnrollmentStart(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["idToken"])
        let idToken = try r.string("idToken") ?? ""
        let options = try await Self.refusingPasskeys {
            try await auth.startPasskeyEnrollment(idToken: idToken, clientIP: call.clientIp, userAgent: call.userAgent)
        }
        return .object([("credentialCreationOptions", PasskeyShapes.creationOptions(try JSONCodec.parse(options)))])
    }

    /// The new passkey's name is `name`, else `displayName` (Firebase's SDKs send one or the other).
    func passkeyEnrollmentFinalize(_ call: ToolkitCall) async throws -> JSONValue {
        let field = "authenticatorRegistrationResponse"
        let r = try call.reader(["idToken", field, "name", "displayName"])
        let idToken = try r.string("idToken") ?? "", name = try r.string("name") ?? r.string("displayName")
        let credential = try PasskeyShapes.browserCredential(r, field, ceremony: .registration)
        let (_, result) = try await Self.refusingPasskeys {
            try await auth.finishPasskeyEnrollment(idToken: idToken, credential: credential, name: name)
        }
        return FirebaseShapes.tokens(result)
    }

    /// `sessionId` (the developer's own session, in Google's words) is accepted and not kept:
    /// the challenge alone binds the ceremony.
    func passkeySignInStart(_ call: ToolkitCall) async throws -> JSONValue {
        let r = try call.reader(["sessionId"])
        _ = try r.string("sessionId")
        let options = try await Self.refusingPasskeys {
            try await auth.startPasskeySignIn(clientIP: call.clientIp, userAgent: call.userAgent)
        }
        return .object([("credentialRequestOptions", PasskeyShapes.requestOptions(try JSONCodec.parse(options)))])
    }

    /// A user with second factors gets the pending credential, as a phone sign-in does.
    func passkeySignInFinalize(_ call: ToolkitCall) async throws -> JSONValue {
        let field = "authenticatorAuthenticationResponse"
        let r = try call.reader(["sessionId", field])
        _ = try r.string("sessionId")
        let credential = try PasskeyShapes.browserCredential(r, field, ceremony: .assertion)
        do {
            let result = try await Self.refusingPasskeys {
                try await auth.finishPasskeySignIn(
                    credential: credential, clientIP: call.clientIp, userAgent: call.userAgent)
            }
            var o = JSONObjectBuilder()
            o.set("idToken", .string(result.idToken))
            o.set("refreshToken", .string(result.refreshToken))
            o.set("expiresIn", .string(String(result.expiresIn)))
            o.set("localId", .string(result.user.uid))
            return o.value
        } catch let error as PhoneAuthError {
            guard let challenge = error.multiFactorChallenge else { throw error }
            return FirebaseShapes.pendingCredential(challenge)
        }
    }

    /// accounts:update's `deletePasskey`: each credential ID (base64 or base64url) removed through
    /// the engine, which needs the user's recent sign-in. All must be the user's before any is
    /// removed, so that a refused call changes nothing.
    func deletePasskeys(_ ids: [String], idToken: String, auth: PhoneAuth) async throws {
        guard !ids.isEmpty else { return }
        let canonical = ids.map { PasskeyShapes.base64URL($0) ?? $0 }
        let held = Set(try await auth.listPasskeys(idToken: idToken).map(\.credentialID))
        guard canonical.allSatisfy(held.contains) else {
            throw ToolkitError(400, "INVALID_PASSKEY", "The passkey was refused (unknownCredential).")
        }
        for id in canonical {
            try await Self.refusingPasskeys { try await auth.deletePasskey(idToken: idToken, credentialID: id) }
        }
    }

    /// The engine's passkey refusal (invalidCredential, the reason in its message) as
    /// INVALID_PASSKEY: Firebase's name for invalidCredential is the temporary proof's.
    static func refusingPasskeys<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as PhoneAuthError where error.code == .invalidCredential {
            throw ToolkitError(400, "INVALID_PASSKEY", error.message)
        }
    }
}
