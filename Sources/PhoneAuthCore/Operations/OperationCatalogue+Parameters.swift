/// How the catalogue's operations read their parameters: the JSON door's shapes (a credential
/// object, an assertion, a field that null clears), turned into the engine's input types, whose
/// own rules apply as at every other door.
extension OperationCatalogue {
    /// A string field that may be given as null to clear it: nil when absent, `.some(nil)` for null.
    static func clearable(_ p: ObjectReader, _ key: String) throws -> String?? {
        guard let raw = p.entries.first(where: { $0.0 == key })?.1 else { return nil }
        if raw == .null { return .some(nil) }
        return .some(try p.string(key))
    }

    static func required(_ p: ObjectReader, _ key: String) throws -> String {
        guard let value = try p.string(key), !value.isEmpty else {
            throw PhoneAuthError(
                .invalidArgument, "The field '\(key)' is required.", details: [("field", .string(key))])
        }
        return value
    }

    /// Reads `appVerification`: {receipt, secret} from the verification push, or {captchaToken};
    /// an object given must hold one of them.
    static func appProof(_ p: ObjectReader) throws -> AppProof? {
        let receipt: String?, secret: String?, token: String?
        do {
            guard let a = try p.object("appVerification") else { return nil }
            try a.rejectUnknown(["receipt", "secret", "captchaToken"])
            try a.rejectNull()
            (receipt, secret, token) = (try a.string("receipt"), try a.string("secret"), try a.string("captchaToken"))
        } catch {
            throw PhoneAuthError(.invalidAppCredential, error.message, details: error.details)
        }
        return try AppProof(receipt: receipt, secret: secret, captchaToken: token, field: "appVerification")
    }

    static func channel(_ p: ObjectReader) throws -> Channel? {
        try Channel.parse(p.string("channel"))
    }

    static func totpSession(_ p: ObjectReader) throws -> String {
        guard let session = try p.string("sessionInfo"), !session.isEmpty else {
            throw PhoneAuthError(
                .missingMultiFactorSession, "A TOTP enrolment needs the 'sessionInfo' mfaTotpStart returned.",
                details: [("field", .string("sessionInfo"))])
        }
        return session
    }

    static func rejectPresent(_ p: ObjectReader, _ keys: [String], factor: FactorKind) throws {
        if let key = keys.first(where: { p.value($0) != nil }) {
            throw PhoneAuthError(
                .invalidArgument, "The field '\(key)' does not apply to factorId \"\(factor.rawValue)\".",
                details: [("field", .string(key))])
        }
    }

    static func totpCode(_ p: ObjectReader, _ key: String = "verificationCode") throws -> String {
        guard let code = try p.string(key), !code.isEmpty else {
            throw PhoneAuthError(
                .missingVerificationCode, "A verification code from the authenticator app is required.",
                details: [("field", .string(key))])
        }
        return code
    }

    /// Reads a second-factor assertion: {factorId: "phone", credential} or
    /// {factorId: "totp", enrollmentId, verificationCode}.
    static func assertion(_ p: ObjectReader) throws -> MultiFactorService.Assertion? {
        guard let a = try p.object("assertion") else { return nil }
        switch try a.string("factorId").flatMap(FactorKind.init(rawValue:)) {
        case .phone?:
            try a.rejectUnknown(["factorId", "credential"])
            try a.rejectNull()
            return .phone(try credential(a, field: "assertion.credential"))
        case .totp?:
            try a.rejectUnknown(["factorId", "enrollmentId", "verificationCode"])
            try a.rejectNull()
            guard let enrollmentId = try a.string("enrollmentId"), !enrollmentId.isEmpty else {
                throw PhoneAuthError(
                    .missingMultiFactorInfo, "A TOTP assertion needs the factor's 'enrollmentId'.",
                    details: [("field", .string("assertion.enrollmentId"))])
            }
            return .totp(enrollmentId: enrollmentId, code: try totpCode(a))
        case nil:
            throw PhoneAuthError(
                .invalidArgument, "The field 'assertion.factorId' must be \"phone\" or \"totp\".",
                details: [("field", .string("assertion.factorId"))])
        }
    }

    /// Reads a phone credential: {verificationId, verificationCode} as the `credential` method
    /// makes it, or {temporaryProof} from a credentialAlreadyInUse error.
    static func credential(_ p: ObjectReader, field: String = "credential") throws -> PhoneCredential {
        let key = field.split(separator: ".").last.map(String.init) ?? field
        guard let raw = p.value(key) else {
            throw PhoneAuthError(
                .invalidCredential, "A credential object is required.", details: [("field", .string(field))])
        }
        guard case .object = raw else {
            throw PhoneAuthError(
                .invalidCredential, "The credential must be a JSON object, not \(raw.typeName).",
                details: [("field", .string(field))])
        }
        let c = try ObjectReader(raw, path: field)
        try c.rejectUnknown(["providerId", "verificationId", "verificationCode", "temporaryProof", "phoneNumber"])
        try c.rejectNull()
        if let provider = try c.string("providerId"), provider != "phone" {
            throw PhoneAuthError(
                .invalidCredential, "The credential's providerId must be \"phone\".",
                details: [("field", .string(field + ".providerId"))])
        }
        if let proof = try c.string("temporaryProof") {
            guard c.value("verificationId") == nil, c.value("verificationCode") == nil else {
                throw PhoneAuthError(
                    .invalidCredential,
                    "A credential holds either 'temporaryProof' or 'verificationId' and 'verificationCode', not both.",
                    details: [("field", .string(field + ".temporaryProof"))])
            }
            guard let credential = PhoneCredential.temporaryProof(proof) else {
                throw PhoneAuthError(
                    .invalidCredential,
                    "The temporary proof is malformed; pass it as the credentialAlreadyInUse error gave it.",
                    details: [("field", .string(field + ".temporaryProof"))])
            }
            return credential
        }
        return try VerificationService.credential(
            verificationId: try c.string("verificationId"), verificationCode: try c.string("verificationCode"))
    }
}
