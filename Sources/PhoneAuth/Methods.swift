import Glibc
import PhoneAuthCore

/// The methods callable through phoneauth_call: each reads its parameters strictly (unknown or
/// mistyped fields are errors naming the field) and returns its result object.
enum Methods {
    typealias Handler = (Engine, ObjectReader) throws -> JSONValue

    static let table: [String: Handler] = [
        "verifyPhoneNumber": { engine, p in
            try p.rejectUnknown(["phoneNumber", "languageCode", "clientIp"])
            let started = try engine.verifyPhoneNumber(try p.string("phoneNumber"), languageCode: try p.string("languageCode"),
                                                       clientIp: try p.string("clientIp"))
            return ResultJSON.verificationStarted(started)
        },
        "credential": { _, p in
            try p.rejectUnknown(["verificationId", "verificationCode"])
            return ResultJSON.credential(try Engine.credential(verificationId: try p.string("verificationId"),
                                                               verificationCode: try p.string("verificationCode")))
        },
        "signInWithCredential": { engine, p in
            try p.rejectUnknown(["credential"])
            return ResultJSON.signIn(try engine.signIn(with: try credential(p)))
        },
        "createCustomToken": { engine, p in
            try p.rejectUnknown(["uid", "claims"])
            return .object([("customToken", .string(try engine.createCustomToken(uid: try required(p, "uid"), claims: p.value("claims"))))])
        },
        "signInWithCustomToken": { engine, p in
            try p.rejectUnknown(["customToken"])
            guard let token = try p.string("customToken"), !token.isEmpty else {
                throw PhoneAuthError(.invalidCustomToken, "A custom token is required.", details: [("reason", .string("missing"))])
            }
            return ResultJSON.signIn(try engine.signIn(withCustomToken: token))
        },
        "refreshIdToken": { engine, p in
            try p.rejectUnknown(["refreshToken"])
            return ResultJSON.refreshed(try engine.refreshIdToken(try required(p, "refreshToken")))
        },
        "verifyIdToken": { engine, p in
            try p.rejectUnknown(["idToken", "checkRevoked"])
            let claims = try engine.verifyIdToken(try required(p, "idToken"), checkRevoked: try p.bool("checkRevoked") ?? false)
            return .object([("claims", claims)])
        },
        "signOut": { engine, p in
            try p.rejectUnknown(["refreshToken"])
            try engine.signOut(refreshToken: try required(p, "refreshToken"))
            return .object([])
        },
        "getUser": { engine, p in
            try p.rejectUnknown(["uid"])
            return .object([("user", ResultJSON.user(try engine.user(uid: try required(p, "uid"))))])
        },
        "getUserByPhoneNumber": { engine, p in
            try p.rejectUnknown(["phoneNumber"])
            guard let phone = try p.string("phoneNumber"), !phone.isEmpty else {
                throw PhoneAuthError(.missingPhoneNumber, "A phone number is required.")
            }
            return .object([("user", ResultJSON.user(try engine.user(phoneNumber: phone)))])
        },
        "deleteUser": { engine, p in
            try p.rejectUnknown(["uid"])
            try engine.deleteUser(uid: try required(p, "uid"))
            return .object([])
        },
        "updateUser": { engine, p in
            try p.rejectUnknown(["uid", "disabled", "displayName", "phoneNumber"])
            let uid = try required(p, "uid")
            let displayName = try clearable(p, "displayName")
            if case let name?? = displayName, name.utf8.count > 256 {
                throw PhoneAuthError(.invalidArgument, "The field 'displayName' must be at most 256 bytes.", details: [("field", .string("displayName"))])
            }
            let user = try engine.updateUser(uid: uid, disabled: try p.bool("disabled"), displayName: displayName,
                                             phoneNumber: try clearable(p, "phoneNumber"))
            return .object([("user", ResultJSON.user(user))])
        },
        "setCustomUserClaims": { engine, p in
            try p.rejectUnknown(["uid", "claims"])
            try engine.setCustomUserClaims(uid: try required(p, "uid"), claims: p.value("claims"))
            return .object([])
        },
        "listUsers": { engine, p in
            try p.rejectUnknown(["maxResults", "pageToken"])
            let page = try engine.listUsers(maxResults: Int(try p.int("maxResults", in: 1...1000) ?? 1000), pageToken: try p.string("pageToken"))
            var result = JSONObjectBuilder()
            result.set("users", .array(page.users.map(ResultJSON.user)))
            result.set("pageToken", page.nextPageToken.map { .string($0) })
            return result.value
        },
        "revokeRefreshTokens": { engine, p in
            try p.rejectUnknown(["uid"])
            try engine.revokeRefreshTokens(uid: try required(p, "uid"))
            return .object([])
        },
        "getJwks": { engine, p in
            try p.rejectUnknown([])
            return engine.jwks
        },
        "getVerificationStatus": { engine, p in
            try p.rejectUnknown(["verificationId"])
            guard let id = try p.string("verificationId"), !id.isEmpty else {
                throw PhoneAuthError(.missingVerificationID, "A verification ID is required.")
            }
            return ResultJSON.verificationStatus(try engine.verificationStatus(id))
        },
    ]

    /// A string field that may be given as null to clear it: nil when absent, `.some(nil)` for null.
    private static func clearable(_ p: ObjectReader, _ key: String) throws -> String?? {
        guard let raw = p.entries.first(where: { $0.0 == key })?.1 else { return nil }
        if raw == .null { return .some(nil) }
        return .some(try p.string(key))
    }

    private static func required(_ p: ObjectReader, _ key: String) throws -> String {
        guard let value = try p.string(key), !value.isEmpty else {
            throw PhoneAuthError(.invalidArgument, "The field '\(key)' is required.", details: [("field", .string(key))])
        }
        return value
    }

    /// Reads the `credential` object produced by the `credential` method.
    private static func credential(_ p: ObjectReader) throws -> PhoneCredential {
        guard let raw = p.value("credential") else {
            throw PhoneAuthError(.invalidCredential, "A credential object is required.", details: [("field", .string("credential"))])
        }
        guard case .object = raw else {
            throw PhoneAuthError(.invalidCredential, "The credential must be a JSON object, not \(raw.typeName).", details: [("field", .string("credential"))])
        }
        let c = try ObjectReader(raw, path: "credential")
        try c.rejectUnknown(["providerId", "verificationId", "verificationCode"])
        if let provider = try c.string("providerId"), provider != "phone" {
            throw PhoneAuthError(.invalidCredential, "The credential's providerId must be \"phone\".", details: [("field", .string("credential.providerId"))])
        }
        return try Engine.credential(verificationId: try c.string("verificationId"), verificationCode: try c.string("verificationCode"))
    }
}
