/// An error the engine reports to its host: a stable code, its status number, an English message
/// for developers (never holding codes, tokens, secrets or full phone numbers) and details.
package struct PhoneAuthError: Error, Sendable {
    package let code: Code
    package let message: String
    package let details: [(String, JSONValue)]

    package init(_ code: Code, _ message: String, details: [(String, JSONValue)] = []) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// A detail's value, e.g. `reason`.
    package func detail(_ key: String) -> JSONValue? { details.first(where: { $0.0 == key })?.1 }

    /// The error object every failure turns into across the ABI.
    package var jsonValue: JSONValue {
        .object([
            (
                "error",
                .object([
                    ("code", .string(code.name)),
                    ("status", .int(Int64(code.status))),
                    ("message", .string(message)),
                    ("details", .object(details)),
                ])
            )
        ])
    }
}

extension PhoneAuthError {
    /// `error` as a PhoneAuthError; any other error (crypto, the system) becomes internalError
    /// named by its type, which says enough and holds no secret.
    package static func from(_ error: Error, during what: String) -> PhoneAuthError {
        if let error = error as? PhoneAuthError { return error }
        return PhoneAuthError(.internalError, "Internal error in \(what): \(type(of: error)).")
    }
}

extension PhoneAuthError {
    /// Every error code, once: its name, its number (Firebase's AuthErrorCode number where the
    /// meaning is the same), what it means, the HTTP status phoneauthd's own routes answer, and the
    /// message Firebase's REST API uses for it. PhoneAuthKit's codes, phoneauthd's two maps and
    /// phoneauth_strerror are derived from this table; the C header, the Python classes and
    /// docs/API.md are checked against it (Tests/PhoneAuthCoreTests/ErrorCatalogueTests.swift).
    /// Numbers never change meaning; a retired code keeps its number.
    package enum Code: String, CaseIterable, Sendable {
        case invalidCustomToken, customTokenMismatch, invalidCredential, userDisabled, operationNotAllowed
        case tooManyRequests, userNotFound, requiresRecentLogin, providerAlreadyLinked, noSuchProvider
        case invalidUserToken, userTokenExpired, userMismatch, credentialAlreadyInUse
        case missingPhoneNumber, invalidPhoneNumber, missingVerificationCode, invalidVerificationCode
        case missingVerificationID, invalidVerificationID, missingAppCredential, invalidAppCredential
        case sessionExpired, quotaExceeded, missingAppToken, appNotVerified, captchaCheckFailed
        case secondFactorRequired, missingMultiFactorSession, missingMultiFactorInfo, invalidMultiFactorSession
        case multiFactorInfoNotFound, secondFactorAlreadyEnrolled, maximumSecondFactorCountExceeded
        case unsupportedFirstFactor, blockingFunctionError, internalError, invalidArgument, invalidConfiguration,
            unknownMethod
        case storageError, invalidIdToken, idTokenRevoked, phoneNumberAlreadyExists, uidAlreadyExists
        case insufficientPermission, invalidApiKey
        case tenantNotFound, tenantNotEmpty, tenantIdMismatch

        /// One row of the catalogue.
        package struct Entry: Sendable {
            package let status: Int32
            /// What the code means, after "name: " in phoneauth_strerror.
            package let summary: String
            /// The HTTP status of phoneauthd's own routes (`/phoneauth/v1`).
            package let httpStatus: Int
            /// The message Firebase's REST API answers for it (before " : " and the detail).
            package let firebaseMessage: String
            /// The HTTP status of the Firebase routes: 400 but for limits, server failures and a
            /// refused admin token, as Google answers them.
            package let firebaseStatus: Int
        }

        private static func row(
            _ status: Int32, _ summary: String, http: Int, firebase: String,
            firebaseStatus: Int = 400
        ) -> Entry {
            Entry(
                status: status, summary: summary, httpStatus: http, firebaseMessage: firebase,
                firebaseStatus: firebaseStatus)
        }

        package var entry: Entry {
            switch self {
            case .invalidCustomToken:
                Self.row(17000, "the custom token is not valid", http: 401, firebase: "INVALID_CUSTOM_TOKEN")
            case .customTokenMismatch:
                Self.row(17002, "the custom token is for another project", http: 400, firebase: "CREDENTIAL_MISMATCH")
            // The dialect's credentials are a session and a code, or a temporary proof: only a proof
            // can be an invalid credential.
            case .invalidCredential:
                Self.row(17004, "the credential is malformed", http: 400, firebase: "INVALID_TEMPORARY_PROOF")
            case .userDisabled: Self.row(17005, "the user account is disabled", http: 403, firebase: "USER_DISABLED")
            case .operationNotAllowed:
                Self.row(
                    17006, "the operation is not allowed by configuration", http: 403, firebase: "OPERATION_NOT_ALLOWED"
                )
            case .tooManyRequests:
                Self.row(
                    17010, "too many requests", http: 429, firebase: "TOO_MANY_ATTEMPTS_TRY_LATER", firebaseStatus: 429)
            case .userNotFound: Self.row(17011, "no such user", http: 404, firebase: "USER_NOT_FOUND")
            case .requiresRecentLogin:
                Self.row(
                    17014, "the operation needs a recent sign-in", http: 400, firebase: "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
                )
            case .providerAlreadyLinked:
                Self.row(
                    17015, "the account already has a credential of this provider", http: 409,
                    firebase: "PROVIDER_ALREADY_LINKED")
            case .noSuchProvider:
                Self.row(
                    17016, "the account has no credential of this provider", http: 404, firebase: "NO_SUCH_PROVIDER")
            case .invalidUserToken:
                Self.row(17017, "the refresh token is not valid", http: 401, firebase: "INVALID_REFRESH_TOKEN")
            case .userTokenExpired: Self.row(17021, "the ID token has expired", http: 401, firebase: "TOKEN_EXPIRED")
            case .userMismatch:
                Self.row(17024, "the credential belongs to another user", http: 400, firebase: "USER_MISMATCH")
            case .credentialAlreadyInUse:
                Self.row(
                    17025, "another account already has this credential", http: 409, firebase: "PHONE_NUMBER_EXISTS")
            case .missingPhoneNumber:
                Self.row(17041, "the phone number is missing", http: 400, firebase: "MISSING_PHONE_NUMBER")
            case .invalidPhoneNumber:
                Self.row(17042, "the phone number is not valid", http: 400, firebase: "INVALID_PHONE_NUMBER")
            case .missingVerificationCode:
                Self.row(17043, "the verification code is missing", http: 400, firebase: "MISSING_CODE")
            case .invalidVerificationCode:
                Self.row(17044, "the verification code is not correct", http: 400, firebase: "INVALID_CODE")
            case .missingVerificationID:
                Self.row(17045, "the verification ID is missing", http: 400, firebase: "MISSING_SESSION_INFO")
            case .invalidVerificationID:
                Self.row(17046, "the verification ID is not valid", http: 400, firebase: "INVALID_SESSION_INFO")
            case .missingAppCredential:
                Self.row(17047, "the app verification proof is missing", http: 400, firebase: "MISSING_APP_CREDENTIAL")
            case .invalidAppCredential:
                Self.row(
                    17048, "the app verification proof is not valid", http: 400, firebase: "INVALID_APP_CREDENTIAL")
            case .sessionExpired:
                Self.row(17051, "the verification can no longer be used", http: 400, firebase: "SESSION_EXPIRED")
            case .quotaExceeded:
                Self.row(17052, "a quota is exhausted", http: 429, firebase: "QUOTA_EXCEEDED", firebaseStatus: 429)
            case .missingAppToken:
                Self.row(17053, "the app's push token is missing", http: 400, firebase: "MISSING_IOS_APP_TOKEN")
            case .appNotVerified:
                Self.row(17055, "the app could not be verified", http: 403, firebase: "APP_NOT_VERIFIED")
            case .captchaCheckFailed:
                Self.row(17056, "the captcha check failed", http: 400, firebase: "CAPTCHA_CHECK_FAILED")
            case .secondFactorRequired:
                Self.row(17078, "a second factor is required", http: 400, firebase: "MISSING_MFA_PENDING_CREDENTIAL")
            case .missingMultiFactorSession:
                Self.row(
                    17081, "the multi-factor session is missing", http: 400, firebase: "MISSING_MFA_PENDING_CREDENTIAL")
            case .missingMultiFactorInfo:
                Self.row(17082, "the second factor is missing", http: 400, firebase: "MISSING_MFA_ENROLLMENT_ID")
            case .invalidMultiFactorSession:
                Self.row(
                    17083, "the multi-factor session is not valid", http: 400,
                    firebase: "INVALID_MFA_PENDING_CREDENTIAL")
            case .multiFactorInfoNotFound:
                Self.row(17084, "no such second factor", http: 404, firebase: "MFA_ENROLLMENT_NOT_FOUND")
            case .secondFactorAlreadyEnrolled:
                Self.row(17087, "the second factor is already enrolled", http: 409, firebase: "SECOND_FACTOR_EXISTS")
            case .maximumSecondFactorCountExceeded:
                Self.row(
                    17088, "the user has the maximum number of second factors", http: 400,
                    firebase: "SECOND_FACTOR_LIMIT_EXCEEDED")
            case .unsupportedFirstFactor:
                Self.row(
                    17089, "the credential cannot be a first factor", http: 400, firebase: "UNSUPPORTED_FIRST_FACTOR")
            case .blockingFunctionError:
                Self.row(
                    17105, "a blocking hook refused the operation", http: 403,
                    firebase: "BLOCKING_FUNCTION_ERROR_RESPONSE")
            case .internalError:
                Self.row(17999, "internal error", http: 500, firebase: "INTERNAL_ERROR", firebaseStatus: 500)
            case .invalidArgument: Self.row(18000, "invalid argument", http: 400, firebase: "INVALID_ARGUMENT")
            case .invalidConfiguration:
                Self.row(18001, "invalid configuration", http: 400, firebase: "INVALID_ARGUMENT")
            case .unknownMethod: Self.row(18002, "unknown method", http: 404, firebase: "INVALID_ARGUMENT")
            case .storageError:
                Self.row(
                    18003, "the database cannot be used", http: 500, firebase: "INTERNAL_ERROR", firebaseStatus: 500)
            case .invalidIdToken: Self.row(18004, "the ID token is not valid", http: 401, firebase: "INVALID_ID_TOKEN")
            case .idTokenRevoked: Self.row(18005, "the ID token has been revoked", http: 401, firebase: "TOKEN_EXPIRED")
            case .phoneNumberAlreadyExists:
                Self.row(18006, "another user has this phone number", http: 409, firebase: "PHONE_NUMBER_EXISTS")
            case .uidAlreadyExists:
                Self.row(18007, "another user has this uid", http: 409, firebase: "DUPLICATE_LOCAL_ID")
            case .insufficientPermission:
                Self.row(
                    18008, "the call needs an admin token", http: 403, firebase: "INSUFFICIENT_PERMISSION",
                    firebaseStatus: 403)
            case .invalidApiKey:
                Self.row(
                    18009, "the API key is missing or not valid", http: 400,
                    firebase: "API key not valid. Please pass a valid API key.")
            case .tenantNotFound:
                Self.row(18010, "no such tenant", http: 404, firebase: "TENANT_NOT_FOUND")
            case .tenantNotEmpty:
                Self.row(18011, "the tenant still has users", http: 409, firebase: "TENANT_NOT_EMPTY")
            case .tenantIdMismatch:
                Self.row(18012, "the token is for another tenant", http: 400, firebase: "TENANT_ID_MISMATCH")
            }
        }

        package var name: String { rawValue }
        package var status: Int32 { entry.status }

        /// The code of a status number, for phoneauth_strerror and hosts that only kept the number.
        package init?(status: Int32) {
            guard let code = Self.byStatus[status] else { return nil }
            self = code
        }

        private static let byStatus: [Int32: Code] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.status, $0) })

        /// The HTTP status of phoneauthd's own routes for an error of this code: a storage error
        /// that may pass when tried again is 503.
        package func httpStatus(retryable: Bool) -> Int {
            self == .storageError && retryable ? 503 : entry.httpStatus
        }

        /// Firebase's message and HTTP status for an error of this code with these details: an
        /// expired ID token, a refresh token whose session ended, and a storage error that may pass
        /// later each have a message of their own, as Firebase's clients expect.
        package func firebase(reason: String?, retryable: Bool) -> (message: String, status: Int) {
            switch (self, reason) {
            case (.invalidIdToken, "expired"): return ("TOKEN_EXPIRED", 400)
            // A refresh token of a session that ended (signed out, revoked, user disabled) is
            // expired for the clients, which then sign the user out; a malformed one is invalid.
            case (.invalidUserToken, RevocationReason.userDisabled.rawValue): return ("USER_DISABLED", 400)
            case (.invalidUserToken, let reason?) where reason != "malformed" && reason != "unknown":
                return ("TOKEN_EXPIRED", 400)
            case (.storageError, _) where retryable: return ("UNAVAILABLE", 503)
            default: return (entry.firebaseMessage, entry.firebaseStatus)
            }
        }
    }
}
