/// Every operation of the engine, declared once: its name, who may call it, whether the caller's
/// address is the server's to set, its parameters and how it runs. phoneauth_call, PhoneAuthKit's
/// `call`, phoneauthd's `/phoneauth/v1` route (its access checks and address override) and
/// Firebase routes (through the operation each performs), and the `phoneauth` command are served
/// from this list; `listMethods` describes it to any host (docs/API.md lists the same methods).
enum OperationCatalogue {
    static let all: [Operation] = [
        Operation(
            "verifyPhoneNumber", access: .client, setsClientIp: true,
            scopedByTenant: true,
            parameters: [
                "phoneNumber", "languageCode", "clientIp", "userAgent", "multiFactorHint", "multiFactorSession",
                "appVerification",
                "channel",
            ]
        ) { engine, p in
            let pool = try pool(engine, p)
            let hint = try p.string("multiFactorHint"), session = try p.string("multiFactorSession")
            if hint != nil || session != nil {
                if p.value("phoneNumber") != nil {
                    throw PhoneAuthError(
                        .invalidArgument,
                        "Give either 'phoneNumber' or 'multiFactorHint' with 'multiFactorSession', not both.",
                        details: [("field", .string("phoneNumber"))])
                }
                return ResultJSON.verificationStarted(
                    try engine.multiFactor.verifySecondFactor(
                        hint: hint, session: session, languageCode: try language(p), clientIp: try clientIp(p),
                        appProof: try appProof(p), channel: try channel(p), in: pool))
            }
            let started = try engine.verification.verifyPhoneNumber(
                try p.string("phoneNumber"), languageCode: try language(p),
                clientIp: try clientIp(p), appProof: try appProof(p), channel: try channel(p), in: pool)
            return ResultJSON.verificationStarted(started)
        },
        Operation(
            "verifyClient", access: .client, setsClientIp: true,
            parameters: ["appToken", "tokenType", "clientIp", "userAgent"]
        ) { engine, p in
            let (receipt, timeout) = try engine.appVerification.verifyClient(
                appToken: try p.string("appToken"), tokenType: try p.string("tokenType"),
                clientIp: try clientIp(p))
            return .object([("receipt", .string(receipt)), ("suggestedTimeout", .int(timeout))])
        },
        Operation("canHandleNotification", access: .client, parameters: ["notification"]) { _, p in
            guard let notification = p.value("notification") else {
                throw PhoneAuthError(
                    .invalidArgument, "The field 'notification' (the notification's payload) is required.",
                    details: [("field", .string("notification"))])
            }
            let found = AppVerificationService.canHandleNotification(notification)
            var result = JSONObjectBuilder()
            result.set("handled", .bool(found.handled))
            result.set("receipt", found.receipt.map { .string($0) })
            result.set("secret", found.secret.map { .string($0) })
            return result.value
        },
        Operation(
            "getCaptchaChallenge", access: .client, setsClientIp: true,
            parameters: ["callbackScheme", "languageCode", "clientIp", "userAgent"]
        ) { engine, p in
            let (url, eventId) = try engine.appVerification.captchaChallenge(
                callbackScheme: try required(p, "callbackScheme"), languageCode: try language(p),
                clientIp: try clientIp(p))
            return .object([("url", .string(url)), ("eventId", .string(eventId))])
        },
        Operation("canHandleURL", access: .client, parameters: ["url"]) { engine, p in
            guard let url = try p.string("url") else {
                throw PhoneAuthError(
                    .invalidArgument, "The field 'url' is required.", details: [("field", .string("url"))])
            }
            let found = try engine.appVerification.canHandleURL(url)
            var result = JSONObjectBuilder()
            result.set("handled", .bool(found.handled))
            result.set("captchaToken", found.captchaToken.map { .string($0) })
            result.set("error", found.error.map { .string($0) })
            return result.value
        },
        Operation("credential", access: .client, parameters: ["verificationId", "verificationCode"]) { _, p in
            return ResultJSON.credential(
                try VerificationService.credential(
                    verificationId: try p.string("verificationId"),
                    verificationCode: try p.string("verificationCode")))
        },
        Operation(
            "signInWithCredential", access: .client, setsClientIp: true,
            scopedByTenant: true, parameters: ["credential", "clientIp", "userAgent"]
        ) { engine, p in
            return ResultJSON.signIn(try engine.signIn.signIn(with: try credential(p), in: try pool(engine, p)))
        },
        Operation(
            "linkWithCredential", access: .client, setsClientIp: true,
            scopedByTenant: true, parameters: ["idToken", "credential", "clientIp", "userAgent"]
        ) { engine, p in
            return ResultJSON.signIn(
                try engine.accounts.link(
                    idToken: try required(p, "idToken"), credential: try credential(p),
                    tenant: try namedTenant(p)))
        },
        Operation(
            "updatePhoneNumber", access: .client, setsClientIp: true,
            scopedByTenant: true, parameters: ["idToken", "credential", "clientIp", "userAgent"]
        ) { engine, p in
            return ResultJSON.signIn(
                try engine.accounts.updatePhoneNumber(
                    idToken: try required(p, "idToken"), credential: try credential(p),
                    tenant: try namedTenant(p)))
        },
        Operation(
            "reauthenticateWithCredential", access: .client, setsClientIp: true,
            scopedByTenant: true, parameters: ["idToken", "credential", "clientIp", "userAgent"]
        ) { engine, p in
            return ResultJSON.signIn(
                try engine.accounts.reauthenticate(
                    idToken: try required(p, "idToken"), credential: try credential(p),
                    tenant: try namedTenant(p)))
        },
        Operation("unlink", access: .client, scopedByTenant: true, parameters: ["idToken", "providerId"]) { engine, p in
            return .object([
                (
                    "user",
                    ResultJSON.user(
                        try engine.accounts.unlink(
                            idToken: try required(p, "idToken"), providerId: try required(p, "providerId"),
                            tenant: try namedTenant(p)))
                )
            ])
        },
        Operation(
            "mfaEnrollStart", access: .client, setsClientIp: true,
            scopedByTenant: true,
            parameters: [
                "idToken", "phoneNumber", "languageCode", "clientIp", "userAgent", "appVerification", "channel",
            ]
        ) { engine, p in
            return ResultJSON.verificationStarted(
                try engine.multiFactor.startPhoneEnrollment(
                    idToken: try required(p, "idToken"), phoneNumber: try p.string("phoneNumber"),
                    languageCode: try language(p), clientIp: try clientIp(p), appProof: try appProof(p),
                    channel: try channel(p), tenant: try namedTenant(p)))
        },
        Operation(
            "mfaTotpStart", access: .client, scopedByTenant: true, parameters: ["idToken", "accountName", "issuer"]
        ) {
            engine, p in
            let started = try engine.multiFactor.startTotpEnrollment(
                idToken: try required(p, "idToken"),
                accountName: try Label(p.string("accountName"), field: "accountName"),
                issuer: try Label(p.string("issuer"), field: "issuer"), tenant: try namedTenant(p))
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
        Operation(
            "mfaEnrollFinalize", access: .client, setsClientIp: true,
            scopedByTenant: true,
            parameters: [
                "idToken", "factorId", "credential", "sessionInfo", "verificationCode", "displayName", "clientIp",
                "userAgent",
            ]
        ) { engine, p in
            let idToken = try required(p, "idToken"),
                displayName = try Label(p.string("displayName"), field: "displayName")
            let tenant = try namedTenant(p)
            switch try p.string("factorId") ?? "phone" {
            case "phone":
                try rejectPresent(p, ["sessionInfo", "verificationCode"], factor: "phone")
                return ResultJSON.signIn(
                    try engine.multiFactor.finishPhoneEnrollment(
                        idToken: idToken, credential: try credential(p), displayName: displayName, tenant: tenant))
            case "totp":
                try rejectPresent(p, ["credential"], factor: "totp")
                return ResultJSON.signIn(
                    try engine.multiFactor.finishTotpEnrollment(
                        idToken: idToken, sessionInfo: try totpSession(p),
                        code: try totpCode(p), displayName: displayName, tenant: tenant))
            default:
                throw PhoneAuthError(
                    .invalidArgument, "The field 'factorId' must be \"phone\" or \"totp\".",
                    details: [("field", .string("factorId"))])
            }
        },
        Operation("mfaUnenroll", access: .client, scopedByTenant: true, parameters: ["idToken", "enrollmentId"]) {
            engine, p in
            return ResultJSON.signIn(
                try engine.multiFactor.unenroll(
                    idToken: try required(p, "idToken"), enrollmentId: try required(p, "enrollmentId"),
                    tenant: try namedTenant(p)))
        },
        Operation(
            "mfaResolveSignIn", access: .client, setsClientIp: true,
            scopedByTenant: true, parameters: ["session", "assertion", "clientIp", "userAgent"]
        ) { engine, p in
            return ResultJSON.signIn(
                try engine.multiFactor.resolveSignIn(
                    session: try p.string("session"), assertion: try assertion(p),
                    clientIp: try clientIp(p), in: try pool(engine, p)))
        },
        Operation("createCustomToken", scopedByTenant: true, parameters: ["uid", "claims"]) { engine, p in
            return .object([
                (
                    "customToken",
                    .string(
                        try engine.signIn.createCustomToken(
                            uid: try required(p, "uid"), claims: p.value("claims"),
                            tenant: try tenant(engine, p))
                    )
                )
            ])
        },
        Operation("signInWithCustomToken", access: .client, scopedByTenant: true, parameters: ["customToken"]) {
            engine, p in
            guard let token = try p.string("customToken"), !token.isEmpty else {
                throw PhoneAuthError(
                    .invalidCustomToken, "A custom token is required.", details: [("reason", .string("missing"))])
            }
            return ResultJSON.signIn(
                try engine.signIn.signIn(withCustomToken: token, tenant: try tenant(engine, p)))
        },
        Operation("refreshIdToken", access: .client, scopedByTenant: true, parameters: ["refreshToken"]) { engine, p in
            return ResultJSON.refreshed(
                try engine.sessions.refreshIdToken(try required(p, "refreshToken"), tenant: try namedTenant(p)))
        },
        Operation("verifyIdToken", access: .client, scopedByTenant: true, parameters: ["idToken", "checkRevoked"]) {
            engine, p in
            let claims = try engine.sessions.verifyIdToken(
                try required(p, "idToken"), checkRevoked: try p.bool("checkRevoked") ?? false,
                tenant: try namedTenant(p))
            return .object([("claims", claims)])
        },
        Operation("signOut", access: .client, scopedByTenant: true, parameters: ["refreshToken"]) { engine, p in
            try engine.sessions.signOut(
                refreshToken: try required(p, "refreshToken"), tenant: try namedTenant(p))
            return .object([])
        },
        Operation("getUser", scopedByTenant: true, parameters: ["uid"]) { engine, p in
            return .object([
                (
                    "user",
                    ResultJSON.user(try engine.accounts.user(uid: try required(p, "uid"), in: try tenant(engine, p)))
                )
            ])
        },
        Operation("getUserByPhoneNumber", scopedByTenant: true, parameters: ["phoneNumber"]) { engine, p in
            guard let phone = try p.string("phoneNumber"), !phone.isEmpty else {
                throw PhoneAuthError(.missingPhoneNumber, "A phone number is required.")
            }
            return .object([
                ("user", ResultJSON.user(try engine.accounts.user(phoneNumber: phone, in: try tenant(engine, p))))
            ])
        },
        Operation("deleteUser", scopedByTenant: true, parameters: ["uid"]) { engine, p in
            try engine.accounts.deleteUser(uid: try required(p, "uid"), in: try tenant(engine, p))
            return .object([])
        },
        Operation(
            "updateUser", scopedByTenant: true, parameters: ["uid", "disabled", "displayName", "phoneNumber"],
            nullable: ["displayName", "phoneNumber"]
        ) { engine, p in
            let uid = try required(p, "uid")
            let displayName = try clearable(p, "displayName").map { name throws(PhoneAuthError) in
                try Label(name, field: "displayName")
            }
            let user = try engine.accounts.updateUser(
                uid: uid, in: try tenant(engine, p), disabled: try p.bool("disabled"), displayName: displayName,
                phoneNumber: try clearable(p, "phoneNumber"))
            return .object([("user", ResultJSON.user(user))])
        },
        Operation("createUser", scopedByTenant: true, parameters: ["uid", "disabled", "displayName", "phoneNumber"]) {
            engine, p in
            let uid = try p.string("uid")
            let user = try engine.accounts.createUser(
                uid: uid, in: try tenant(engine, p), disabled: try p.bool("disabled") ?? false,
                displayName: try Label(p.string("displayName"), field: "displayName"),
                phoneNumber: try p.string("phoneNumber"))
            return .object([("user", ResultJSON.user(user))])
        },
        Operation("setCustomUserClaims", scopedByTenant: true, parameters: ["uid", "claims"], nullable: ["claims"]) {
            engine, p in
            try engine.accounts.setCustomUserClaims(
                uid: try required(p, "uid"), in: try tenant(engine, p), claims: p.value("claims"))
            return .object([])
        },
        Operation("listUsers", scopedByTenant: true, parameters: ["maxResults", "pageToken"]) { engine, p in
            let page = try engine.accounts.listUsers(
                in: try tenant(engine, p), maxResults: Int(try p.int("maxResults", in: 1...1000) ?? 1000),
                pageToken: try p.string("pageToken"))
            var result = JSONObjectBuilder()
            result.set("users", .array(page.users.map(ResultJSON.user)))
            result.set("pageToken", page.nextPageToken.map { .string($0) })
            return result.value
        },
        Operation("exportUsers", scopedByTenant: true, parameters: ["maxResults", "pageToken"]) { engine, p in
            let page = try engine.transfer.exportUsers(
                in: try tenant(engine, p), maxResults: Int(try p.int("maxResults", in: 1...1000) ?? 1000),
                pageToken: try p.string("pageToken"))
            var result = JSONObjectBuilder()
            result.set("users", .array(page.users))
            result.set("pageToken", page.nextPageToken.map { .string($0) })
            return result.value
        },
        Operation("importUsers", scopedByTenant: true, parameters: ["users"]) { engine, p in
            guard case let .array(users)? = p.value("users") else {
                throw PhoneAuthError(
                    .invalidArgument, "The field 'users' (an array of users as auth:export writes them) is required.",
                    details: [("field", .string("users"))])
            }
            let outcome = try engine.transfer.importUsers(users, into: try tenant(engine, p))
            return .object([
                ("imported", .int(Int64(outcome.imported))),
                (
                    "errors",
                    .array(
                        outcome.errors.map {
                            .object([("index", .int(Int64($0.index))), ("message", .string($0.message))])
                        })
                ),
            ])
        },
        Operation("revokeRefreshTokens", scopedByTenant: true, parameters: ["uid"]) { engine, p in
            try engine.sessions.revokeRefreshTokens(uid: try required(p, "uid"), in: try tenant(engine, p))
            return .object([])
        },
        Operation("unlockPhoneNumber", parameters: ["phoneNumber"]) { engine, p in
            return .object([("unlocked", .bool(try engine.lockouts.unlockPhoneNumber(try p.string("phoneNumber"))))])
        },
        Operation("getJwks", access: .client, parameters: []) { engine, p in
            return engine.keyService.jwks
        },
        Operation("listPendingEvents", parameters: ["maxResults", "pageToken"]) { engine, p in
            let page = try engine.outbox.list(
                maxResults: Int(try p.int("maxResults", in: 1...1000) ?? 100), pageToken: try p.string("pageToken"))
            var result = JSONObjectBuilder()
            result.set("events", .array(page.events.map(ResultJSON.waitingEvent)))
            result.set("pageToken", page.nextPageToken.map { .string($0) })
            return result.value
        },
        Operation("dropPendingEvent", parameters: ["eventId"]) { engine, p in
            try engine.outbox.drop(eventId: try p.string("eventId"))
            return .object([])
        },
        Operation("getStatus", parameters: []) { engine, _ in
            ResultJSON.status(try engine.status())
        },
        Operation("listSigningKeys", parameters: []) { engine, _ in
            .object([("keys", ResultJSON.signingKeys(engine.keyService.signingKeys()))])
        },
        Operation("rotateSigningKey", parameters: ["algorithm"]) { engine, p in
            .object([
                (
                    "keys",
                    ResultJSON.signingKeys(try engine.keyService.rotateSigningKey(algorithm: try p.string("algorithm")))
                )
            ])
        },
        Operation("retireSigningKey", parameters: ["kid"]) { engine, p in
            .object([
                ("keys", ResultJSON.signingKeys(try engine.keyService.retireSigningKey(kid: try required(p, "kid"))))
            ])
        },
        Operation("rekey", access: .library, parameters: ["newMasterKey"]) { engine, p in
            let keyFile = try engine.keyService.rekey(newMasterKey: try required(p, "newMasterKey"))
            var result = JSONObjectBuilder()
            result.set("rekeyed", .bool(true))
            result.set("keyFile", keyFile.map { .string($0) })
            return result.value
        },
        Operation("getStorageStatistics", parameters: []) { engine, p in
            let s = engine.storageStatistics()
            return .object([
                ("driver", .string(s.driver)), ("poolSize", .int(Int64(s.poolSize))),
                ("transactions", .int(Int64(s.transactions))), ("retries", .int(Int64(s.retries))),
                ("roundTrips", .int(Int64(s.roundTrips))),
            ])
        },
        Operation("getVerificationStatus", scopedByTenant: true, parameters: ["verificationId"]) { engine, p in
            guard let id = try p.string("verificationId"), !id.isEmpty else {
                throw PhoneAuthError(.missingVerificationID, "A verification ID is required.")
            }
            return ResultJSON.verificationStatus(
                try engine.verification.verificationStatus(id, in: try tenant(engine, p)))
        },
        Operation("reportDelivery", parameters: ["provider", "url", "headers", "body"]) { engine, p in
            let applied = try engine.receipts.reportDelivery(provider: try p.string("provider"), ReceiptRequest.read(p))
            return .object([("receipts", .array(applied.map(ResultJSON.receipt)))])
        },
        Operation("confirmReceiptSubscription", parameters: ["provider", "url"]) { engine, p in
            .object([
                (
                    "challenge",
                    .string(
                        try engine.receipts.confirmSubscription(provider: p.string("provider"), url: p.string("url")))
                )
            ])
        },
        Operation(
            "createTenant", parameters: TenantSettings.keys.union(["tenantId", "displayName"]),
            nullable: TenantSettings.keys
        ) { engine, p in
            .object([("tenant", try engine.tenants.create(p).json)])
        },
        Operation("getTenant", parameters: ["tenantId"]) { engine, p in
            .object([("tenant", try engine.tenants.tenant(try TenantID(p.string("tenantId"))).json)])
        },
        Operation(
            "updateTenant", parameters: TenantSettings.keys.union(["tenantId", "displayName"]),
            nullable: TenantSettings.keys
        ) { engine, p in
            .object([("tenant", try engine.tenants.update(try TenantID(p.string("tenantId")), p).json)])
        },
        Operation("deleteTenant", parameters: ["tenantId"]) { engine, p in
            try engine.tenants.delete(try TenantID(p.string("tenantId")))
            return .object([])
        },
        Operation("listTenants", parameters: ["maxResults", "pageToken"]) { engine, p in
            let page = try engine.tenants.list(
                maxResults: Int(try p.int("maxResults", in: 1...1000) ?? 100), pageToken: try p.string("pageToken"))
            var result = JSONObjectBuilder()
            result.set("tenants", .array(page.tenants.map(\.json)))
            result.set("pageToken", page.nextPageToken.map { .string($0) })
            return result.value
        },
        Operation("listMethods", access: .client, parameters: []) { _, _ in
            .object([("methods", .array(all.map(\.description)))])
        },
    ]

    static let byName: [String: Operation] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
}
