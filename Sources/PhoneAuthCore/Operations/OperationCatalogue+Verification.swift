/// Starting a phone verification: the code sent, the proof the request comes from the app
/// (a verification push, a captcha), and the credential that holds the code.
extension OperationCatalogue {
    static let verification: [Operation] = [
        Operation(
            "verifyPhoneNumber", access: .client, setsClientIp: true,
            scopedByTenant: true,
            parameters: [
                "phoneNumber", "languageCode", "clientIp", "userAgent", "multiFactorHint", "multiFactorSession",
                "appVerification",
                "channel",
            ]
        ) { engine, caller, p in
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
                        hint: hint, session: session, appProof: try appProof(p), channel: try channel(p), for: caller))
            }
            let started = try engine.verification.verifyPhoneNumber(
                try p.string("phoneNumber"), appProof: try appProof(p), channel: try channel(p), for: caller)
            return ResultJSON.verificationStarted(started)
        },
        Operation(
            "verifyClient", access: .client, setsClientIp: true,
            parameters: ["appToken", "tokenType", "clientIp", "userAgent"]
        ) { engine, caller, p in
            let (receipt, timeout) = try engine.appVerification.verifyClient(
                appToken: try p.string("appToken"), tokenType: try p.string("tokenType"), for: caller)
            return .object([("receipt", .string(receipt)), ("suggestedTimeout", .int(timeout))])
        },
        Operation("canHandleNotification", access: .client, parameters: ["notification"]) { _, _, p in
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
        ) { engine, caller, p in
            let (url, eventId) = try engine.appVerification.captchaChallenge(
                callbackScheme: try required(p, "callbackScheme"), for: caller)
            return .object([("url", .string(url)), ("eventId", .string(eventId))])
        },
        Operation("canHandleURL", access: .client, parameters: ["url"]) { engine, caller, p in
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
        Operation("credential", access: .client, parameters: ["verificationId", "verificationCode"]) { _, _, p in
            return ResultJSON.credential(
                try VerificationService.credential(
                    verificationId: try p.string("verificationId"),
                    verificationCode: try p.string("verificationCode")))
        },
    ]
}
