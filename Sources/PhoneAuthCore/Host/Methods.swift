import Glibc

/// The methods callable through phoneauth_call: each reads its parameters strictly (unknown or
/// mistyped fields are errors naming the field) and returns its result object.
enum Methods {
    typealias Handler = (Engine, ObjectReader) throws -> JSONValue

    static let table: [String: Handler] = [
        "verifyPhoneNumber": { engine, p in
            try p.rejectUnknown(["phoneNumber", "languageCode", "clientIp", "multiFactorHint", "multiFactorSession", "appVerification"])
            let hint = try p.string("multiFactorHint"), session = try p.string("multiFactorSession")
            if hint != nil || session != nil {
                if p.value("phoneNumber") != nil {
                    throw PhoneAuthError(.invalidArgument, "Give either 'phoneNumber' or 'multiFactorHint' with 'multiFactorSession', not both.",
                                         details: [("field", .string("phoneNumber"))])
                }
                return ResultJSON.verificationStarted(try engine.verifySecondFactor(hint: hint, session: session, languageCode: try p.string("languageCode"),
                                                                                    clientIp: try p.string("clientIp"), appProof: try appProof(p)))
            }
            let started = try engine.verifyPhoneNumber(try p.string("phoneNumber"), languageCode: try p.string("languageCode"),
                                                       clientIp: try p.string("clientIp"), appProof: try appProof(p))
            return ResultJSON.verificationStarted(started)
        },
        "verifyClient": { engine, p in
            try p.rejectUnknown(["appToken", "tokenType", "clientIp"])
            let (receipt, timeout) = try engine.verifyClient(appToken: try p.string("appToken"), tokenType: try p.string("tokenType"),
                                                             clientIp: try clientIp(p))
            return .object([("receipt", .string(receipt)), ("suggestedTimeout", .int(timeout))])
        },
        "canHandleNotification": { _, p in
            try p.rejectUnknown(["notification"])
            guard let notification = p.value("notification") else {
                throw PhoneAuthError(.invalidArgument, "The field 'notification' (the notification's payload) is required.", details: [("field", .string("notification"))])
            }
            let found = Engine.canHandleNotification(notification)
            var result = JSONObjectBuilder()
            result.set("handled", .bool(found.handled))
            result.set("receipt", found.receipt.map { .string($0) })
            result.set("secret", found.secret.map { .string($0) })
            return result.value
        },
        "getCaptchaChallenge": { engine, p in
            try p.rejectUnknown(["callbackScheme", "languageCode", "clientIp"])
            let (url, eventId) = try engine.captchaChallenge(callbackScheme: try required(p, "callbackScheme"), languageCode: try p.string("languageCode"),
                                                             clientIp: try clientIp(p))
            return .object([("url", .string(url)), ("eventId", .string(eventId))])
        },
        "canHandleURL": { engine, p in
            try p.rejectUnknown(["url"])
            guard let url = try p.string("url") else {
                throw PhoneAuthError(.invalidArgument, "The field 'url' is required.", details: [("field", .string("url"))])
            }
            let found = try engine.canHandleURL(url)
            var result = JSONObjectBuilder()
            result.set("handled", .bool(found.handled))
            result.set("captchaToken", found.captchaToken.map { .string($0) })
            result.set("error", found.error.map { .string($0) })
            return result.value
        },
        "credential": { _, p in
            try p.rejectUnknown(["verificationId", "verificationCode"])
            return ResultJSON.credential(try Engine.credential(verificationId: try p.string("verificationId"),
                                                               verificationCode: try p.string("verificationCode")))
        },
        "signInWithCredential": { engine, p in
            try p.rejectUnknown(["credential", "clientIp"])
            return ResultJSON.signIn(try engine.signIn(with: try credential(p)))
        },
        "linkWithCredential": { engine, p in
            try p.rejectUnknown(["idToken", "credential", "clientIp"])
            return ResultJSON.signIn(try engine.link(idToken: try required(p, "idToken"), credential: try credential(p)))
        },
        "updatePhoneNumber": { engine, p in
            try p.rejectUnknown(["idToken", "credential", "clientIp"])
            return ResultJSON.signIn(try engine.updatePhoneNumber(idToken: try required(p, "idToken"), credential: try credential(p)))
        },
        "reauthenticateWithCredential": { engine, p in
            try p.rejectUnknown(["idToken", "credential", "clientIp"])
            return ResultJSON.signIn(try engine.reauthenticate(idToken: try required(p, "idToken"), credential: try credential(p)))
        },
        "unlink": { engine, p in
            try p.rejectUnknown(["idToken", "providerId"])
            return .object([("user", ResultJSON.user(try engine.unlink(idToken: try required(p, "idToken"), providerId: try required(p, "providerId"))))])
        },
        "mfaEnrollStart": { engine, p in
            try p.rejectUnknown(["idToken", "phoneNumber", "languageCode", "clientIp", "appVerification"])
            return ResultJSON.verificationStarted(try engine.startPhoneEnrollment(
                idToken: try required(p, "idToken"), phoneNumber: try p.string("phoneNumber"),
                languageCode: try p.string("languageCode"), clientIp: try p.string("clientIp"), appProof: try appProof(p)))
        },
        "mfaTotpStart": { engine, p in
            try p.rejectUnknown(["idToken", "accountName", "issuer"])
            let started = try engine.startTotpEnrollment(idToken: try required(p, "idToken"), accountName: try label(p, "accountName"),
                                                         issuer: try label(p, "issuer"))
            return .object([
                ("sessionInfo", .string(started.sessionInfo)),
                ("secretKey", .string(started.secretKey)),
                ("otpauthUri", .string(started.otpauthUri)),
                ("hashingAlgorithm", .string("SHA1")),
                ("codeLength", .int(Int64(Totp.digits))),
                ("period", .int(Totp.periodSeconds)),
                ("enrollmentCompletionDeadline", .string(started.expiresAt.rfc3339)),
            ])
        },
        "mfaEnrollFinalize": { engine, p in
            try p.rejectUnknown(["idToken", "factorId", "credential", "sessionInfo", "verificationCode", "displayName", "clientIp"])
            let idToken = try required(p, "idToken"), displayName = try label(p, "displayName")
            switch try p.string("factorId") ?? "phone" {
            case "phone":
                try rejectPresent(p, ["sessionInfo", "verificationCode"], factor: "phone")
                return ResultJSON.signIn(try engine.finishPhoneEnrollment(idToken: idToken, credential: try credential(p), displayName: displayName))
            case "totp":
                try rejectPresent(p, ["credential"], factor: "totp")
                return ResultJSON.signIn(try engine.finishTotpEnrollment(idToken: idToken, sessionInfo: try totpSession(p),
                                                                         code: try totpCode(p), displayName: displayName))
            default:
                throw PhoneAuthError(.invalidArgument, "The field 'factorId' must be \"phone\" or \"totp\".", details: [("field", .string("factorId"))])
            }
        },
        "mfaUnenroll": { engine, p in
            try p.rejectUnknown(["idToken", "enrollmentId"])
            return ResultJSON.signIn(try engine.unenroll(idToken: try required(p, "idToken"), enrollmentId: try required(p, "enrollmentId")))
        },
        "mfaResolveSignIn": { engine, p in
            try p.rejectUnknown(["session", "assertion", "clientIp"])
            return ResultJSON.signIn(try engine.resolveSignIn(session: try p.string("session"), assertion: try assertion(p),
                                                              clientIp: try clientIp(p)))
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
            if case .some(.some) = displayName { _ = try label(p, "displayName") }
            let user = try engine.updateUser(uid: uid, disabled: try p.bool("disabled"), displayName: displayName,
                                             phoneNumber: try clearable(p, "phoneNumber"))
            return .object([("user", ResultJSON.user(user))])
        },
        "createUser": { engine, p in
            try p.rejectUnknown(["uid", "disabled", "displayName", "phoneNumber"])
            let uid = try p.string("uid")
            let user = try engine.createUser(uid: uid, disabled: try p.bool("disabled") ?? false, displayName: try label(p, "displayName"),
                                             phoneNumber: try p.string("phoneNumber"))
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
        "exportUsers": { engine, p in
            try p.rejectUnknown(["maxResults", "pageToken"])
            let page = try engine.exportUsers(maxResults: Int(try p.int("maxResults", in: 1...1000) ?? 1000), pageToken: try p.string("pageToken"))
            var result = JSONObjectBuilder()
            result.set("users", .array(page.users))
            result.set("pageToken", page.nextPageToken.map { .string($0) })
            return result.value
        },
        "importUsers": { engine, p in
            try p.rejectUnknown(["users"])
            guard case let .array(users)? = p.value("users") else {
                throw PhoneAuthError(.invalidArgument, "The field 'users' (an array of users as auth:export writes them) is required.",
                                     details: [("field", .string("users"))])
            }
            let outcome = try engine.importUsers(users)
            return .object([("imported", .int(Int64(outcome.imported))),
                            ("errors", .array(outcome.errors.map { .object([("index", .int(Int64($0.index))), ("message", .string($0.message))]) }))])
        },
        "revokeRefreshTokens": { engine, p in
            try p.rejectUnknown(["uid"])
            try engine.revokeRefreshTokens(uid: try required(p, "uid"))
            return .object([])
        },
        "unlockPhoneNumber": { engine, p in
            try p.rejectUnknown(["phoneNumber"])
            return .object([("unlocked", .bool(try engine.unlockPhoneNumber(try p.string("phoneNumber"))))])
        },
        "getJwks": { engine, p in
            try p.rejectUnknown([])
            return engine.jwks
        },
        "getStatus": { engine, p in
            try p.rejectUnknown([])
            let now = engine.clock.now(), s = try engine.store.status(now: now)
            return .object([
                ("schemaVersion", .int(Int64(s.schemaVersion))), ("users", .int(s.users)), ("liveSessions", .int(s.liveSessions)),
                ("sms", .object([("queued", .int(s.smsQueued)), ("sentLastHour", .int(s.smsSentLastHour)),
                                 ("failedLastHour", .int(s.smsFailedLastHour))])),
                ("signingKeys", ResultJSON.signingKeys(engine.keys.signingKeyTimes, now: now)),
            ])
        },
        "listSigningKeys": { engine, p in
            try p.rejectUnknown([])
            return .object([("keys", ResultJSON.signingKeys(engine.keys.signingKeyTimes, now: engine.clock.now()))])
        },
        "rotateSigningKey": { engine, p in
            try p.rejectUnknown(["algorithm"])
            var algorithm: EngineConfig.SigningAlgorithm?
            if let name = try p.string("algorithm") {
                guard let value = EngineConfig.SigningAlgorithm(rawValue: name) else {
                    throw PhoneAuthError(.invalidArgument, "The field 'algorithm' must be ES256, RS256 or EdDSA.", details: [("field", .string("algorithm"))])
                }
                algorithm = value
            }
            try engine.keys.rotate(algorithm: algorithm, retireAfterSeconds: engine.config.idTokenTtlSeconds)
            return .object([("keys", ResultJSON.signingKeys(engine.keys.signingKeyTimes, now: engine.clock.now()))])
        },
        "retireSigningKey": { engine, p in
            try p.rejectUnknown(["kid"])
            let kid = try required(p, "kid")
            guard try engine.keys.retire(kid: kid, retireOthersAfterSeconds: engine.config.idTokenTtlSeconds) else {
                throw PhoneAuthError(.invalidArgument, "No signing key that still verifies has this kid.", details: [("field", .string("kid"))])
            }
            return .object([("keys", ResultJSON.signingKeys(engine.keys.signingKeyTimes, now: engine.clock.now()))])
        },
        "rekey": { engine, p in
            try p.rejectUnknown(["newMasterKey"])
            let keyFile = try engine.rekey(newMasterKey: try required(p, "newMasterKey"))
            var result = JSONObjectBuilder()
            result.set("rekeyed", .bool(true))
            result.set("keyFile", keyFile.map { .string($0) })
            return result.value
        },
        "getStorageStatistics": { engine, p in
            try p.rejectUnknown([])
            let s = engine.storageStatistics()
            return .object([("driver", .string(s.driver)), ("poolSize", .int(Int64(s.poolSize))),
                            ("transactions", .int(Int64(s.transactions))), ("retries", .int(Int64(s.retries))),
                            ("roundTrips", .int(Int64(s.roundTrips)))])
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

    /// Reads `appVerification`: {receipt, secret} from the verification push, or {captchaToken}.
    private static func appProof(_ p: ObjectReader) throws -> Engine.AppProof? {
        let receipt: String?, secret: String?, token: String?
        do {
            guard let a = try p.object("appVerification") else { return nil }
            try a.rejectUnknown(["receipt", "secret", "captchaToken"])
            (receipt, secret, token) = (try a.string("receipt"), try a.string("secret"), try a.string("captchaToken"))
        } catch {
            throw PhoneAuthError(.invalidAppCredential, error.message, details: error.details)
        }
        switch (receipt, secret, token) {
        case let (receipt?, secret?, nil) where !receipt.isEmpty && !secret.isEmpty: return .receipt(receipt: receipt, secret: secret)
        case let (nil, nil, token?) where !token.isEmpty && token.utf8.count <= 16_384: return .captcha(token: token)
        default:
            throw PhoneAuthError(.invalidAppCredential, "The field 'appVerification' must hold either 'receipt' and 'secret', or 'captchaToken'.",
                                 details: [("field", .string("appVerification"))])
        }
    }

    /// A short free-text field (display name, TOTP label): at most 256 bytes.
    private static func label(_ p: ObjectReader, _ key: String) throws -> String? {
        guard let value = try p.string(key) else { return nil }
        guard value.utf8.count <= 256 else {
            throw PhoneAuthError(.invalidArgument, "The field '\(key)' must be at most 256 bytes.", details: [("field", .string(key))])
        }
        return value
    }

    private static func totpSession(_ p: ObjectReader) throws -> String {
        guard let session = try p.string("sessionInfo"), !session.isEmpty else {
            throw PhoneAuthError(.missingMultiFactorSession, "A TOTP enrolment needs the 'sessionInfo' mfaTotpStart returned.",
                                 details: [("field", .string("sessionInfo"))])
        }
        return session
    }

    private static func rejectPresent(_ p: ObjectReader, _ keys: [String], factor: String) throws {
        if let key = keys.first(where: { p.value($0) != nil }) {
            throw PhoneAuthError(.invalidArgument, "The field '\(key)' does not apply to factorId \"\(factor)\".", details: [("field", .string(key))])
        }
    }

    private static func totpCode(_ p: ObjectReader, _ key: String = "verificationCode") throws -> String {
        guard let code = try p.string(key), !code.isEmpty else {
            throw PhoneAuthError(.missingVerificationCode, "A verification code from the authenticator app is required.", details: [("field", .string(key))])
        }
        return code
    }

    /// Reads a second-factor assertion: {factorId: "phone", credential} or {factorId: "totp", enrollmentId, verificationCode}.
    private static func assertion(_ p: ObjectReader) throws -> Engine.Assertion? {
        guard let a = try p.object("assertion") else { return nil }
        switch try a.string("factorId") {
        case "phone":
            try a.rejectUnknown(["factorId", "credential"])
            return .phone(try credential(a, field: "assertion.credential"))
        case "totp":
            try a.rejectUnknown(["factorId", "enrollmentId", "verificationCode"])
            guard let enrollmentId = try a.string("enrollmentId"), !enrollmentId.isEmpty else { throw PhoneAuthError(.missingMultiFactorInfo, "A TOTP assertion needs the factor's 'enrollmentId'.", details: [("field", .string("assertion.enrollmentId"))]) }
            return .totp(enrollmentId: enrollmentId, code: try totpCode(a))
        default:
            throw PhoneAuthError(.invalidArgument, "The field 'assertion.factorId' must be \"phone\" or \"totp\".",
                                 details: [("field", .string("assertion.factorId"))])
        }
    }

    /// Reads a phone credential: {verificationId, verificationCode} as the `credential` method
    /// makes it, or {temporaryProof} from a credentialAlreadyInUse error.
    private static func credential(_ p: ObjectReader, field: String = "credential") throws -> PhoneCredential {
        let key = field.split(separator: ".").last.map(String.init) ?? field
        guard let raw = p.value(key) else {
            throw PhoneAuthError(.invalidCredential, "A credential object is required.", details: [("field", .string(field))])
        }
        guard case .object = raw else {
            throw PhoneAuthError(.invalidCredential, "The credential must be a JSON object, not \(raw.typeName).", details: [("field", .string(field))])
        }
        let c = try ObjectReader(raw, path: field)
        try c.rejectUnknown(["providerId", "verificationId", "verificationCode", "temporaryProof", "phoneNumber"])
        if let provider = try c.string("providerId"), provider != "phone" {
            throw PhoneAuthError(.invalidCredential, "The credential's providerId must be \"phone\".", details: [("field", .string(field + ".providerId"))])
        }
        if let proof = try c.string("temporaryProof") {
            guard c.value("verificationId") == nil, c.value("verificationCode") == nil else {
                throw PhoneAuthError(.invalidCredential, "A credential holds either 'temporaryProof' or 'verificationId' and 'verificationCode', not both.",
                                     details: [("field", .string(field + ".temporaryProof"))])
            }
            guard var credential = PhoneCredential.temporaryProof(proof) else {
                throw PhoneAuthError(.invalidCredential, "The temporary proof is malformed; pass it as the credentialAlreadyInUse error gave it.",
                                     details: [("field", .string(field + ".temporaryProof"))])
            }
            credential.clientIp = try clientIp(p)
            return credential
        }
        var result = try Engine.credential(verificationId: try c.string("verificationId"), verificationCode: try c.string("verificationCode"))
        result.clientIp = try clientIp(p)
        return result
    }

    /// The call's `clientIp` (the address the end user's request came from), checked to be one;
    /// read from the top-level parameters.
    private static func clientIp(_ p: ObjectReader) throws -> String? {
        let ip = try p.string("clientIp")
        try Engine.checkClientIp(ip)
        return ip
    }
}
