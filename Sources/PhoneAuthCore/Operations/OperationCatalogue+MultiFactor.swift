/// Second factors: enrolling one (an SMS number or TOTP), removing one, and signing in with
/// one.
extension OperationCatalogue {
    static let multiFactor: [Operation] = [
        Operation(
            "mfaEnrollStart", access: .client, setsClientIp: true,
            scopedByTenant: true,
            parameters: [
                "idToken", "phoneNumber", "languageCode", "clientIp", "userAgent", "appVerification", "channel",
            ]
        ) { engine, caller, p in
            return ResultJSON.verificationStarted(
                try engine.multiFactor.startPhoneEnrollment(
                    idToken: try required(p, "idToken"), phoneNumber: try p.string("phoneNumber"),
                    appProof: try appProof(p),
                    channel: try channel(p), for: caller))
        },
        Operation(
            "mfaTotpStart", access: .client, scopedByTenant: true, parameters: ["idToken", "accountName", "issuer"]
        ) {
            engine, caller, p in
            let started = try engine.multiFactor.startTotpEnrollment(
                idToken: try required(p, "idToken"),
                accountName: try Label(p.string("accountName"), field: "accountName"),
                issuer: try Label(p.string("issuer"), field: "issuer"), for: caller)
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
        ) { engine, caller, p in
            let idToken = try required(p, "idToken"),
                displayName = try Label(p.string("displayName"), field: "displayName")
            // No factorId: a phone number, as before TOTP.
            switch try p.string("factorId").map(FactorKind.init(rawValue:)) ?? .phone {
            case .phone?:
                try rejectPresent(p, ["sessionInfo", "verificationCode"], factor: .phone)
                return ResultJSON.signIn(
                    try engine.multiFactor.finishPhoneEnrollment(
                        idToken: idToken, credential: try credential(p), displayName: displayName, for: caller))
            case .totp?:
                try rejectPresent(p, ["credential"], factor: .totp)
                return ResultJSON.signIn(
                    try engine.multiFactor.finishTotpEnrollment(
                        idToken: idToken, sessionInfo: try totpSession(p),
                        code: try totpCode(p), displayName: displayName, for: caller))
            case nil:
                throw PhoneAuthError(
                    .invalidArgument, "The field 'factorId' must be \"phone\" or \"totp\".",
                    details: [("field", .string("factorId"))])
            }
        },
        Operation("mfaUnenroll", access: .client, scopedByTenant: true, parameters: ["idToken", "enrollmentId"]) {
            engine, caller, p in
            return ResultJSON.signIn(
                try engine.multiFactor.unenroll(
                    idToken: try required(p, "idToken"), enrollmentId: try required(p, "enrollmentId"), for: caller))
        },
        Operation(
            "mfaResolveSignIn", access: .client, setsClientIp: true,
            scopedByTenant: true, parameters: ["session", "assertion", "clientIp", "userAgent"]
        ) { engine, caller, p in
            return ResultJSON.signIn(
                try engine.multiFactor.resolveSignIn(
                    session: try p.string("session"), assertion: try assertion(p),
                    for: caller))
        },
    ]
}
