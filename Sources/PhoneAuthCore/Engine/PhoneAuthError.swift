/// An error the engine reports to its host: a stable code, its status number, an English message
/// for developers (never holding codes, tokens, secrets or full phone numbers) and details.
public struct PhoneAuthError: Error, Sendable {
    public let code: Code
    public let message: String
    public let details: [(String, JSONValue)]

    public init(_ code: Code, _ message: String, details: [(String, JSONValue)] = []) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// Error codes, with Firebase's AuthErrorCode name and number where the meaning is the same.
    /// A struct over raw values so that new codes can be added without breaking callers.
    public struct Code: Hashable, Sendable {
        public let name: String
        public let status: Int32

        public static let invalidCustomToken = Code(name: "invalidCustomToken", status: 17000)
        public static let customTokenMismatch = Code(name: "customTokenMismatch", status: 17002)
        public static let invalidCredential = Code(name: "invalidCredential", status: 17004)
        public static let userDisabled = Code(name: "userDisabled", status: 17005)
        public static let operationNotAllowed = Code(name: "operationNotAllowed", status: 17006)
        public static let tooManyRequests = Code(name: "tooManyRequests", status: 17010)
        public static let userNotFound = Code(name: "userNotFound", status: 17011)
        public static let invalidUserToken = Code(name: "invalidUserToken", status: 17017)
        public static let userTokenExpired = Code(name: "userTokenExpired", status: 17021)
        public static let missingPhoneNumber = Code(name: "missingPhoneNumber", status: 17041)
        public static let invalidPhoneNumber = Code(name: "invalidPhoneNumber", status: 17042)
        public static let missingVerificationCode = Code(name: "missingVerificationCode", status: 17043)
        public static let invalidVerificationCode = Code(name: "invalidVerificationCode", status: 17044)
        public static let missingVerificationID = Code(name: "missingVerificationID", status: 17045)
        public static let invalidVerificationID = Code(name: "invalidVerificationID", status: 17046)
        public static let sessionExpired = Code(name: "sessionExpired", status: 17051)
        public static let quotaExceeded = Code(name: "quotaExceeded", status: 17052)
        public static let missingAppCredential = Code(name: "missingAppCredential", status: 17047)
        public static let invalidAppCredential = Code(name: "invalidAppCredential", status: 17048)
        public static let missingAppToken = Code(name: "missingAppToken", status: 17053)
        public static let captchaCheckFailed = Code(name: "captchaCheckFailed", status: 17056)
        public static let appNotVerified = Code(name: "appNotVerified", status: 17055)
        public static let secondFactorRequired = Code(name: "secondFactorRequired", status: 17078)
        public static let requiresRecentLogin = Code(name: "requiresRecentLogin", status: 17014)
        public static let providerAlreadyLinked = Code(name: "providerAlreadyLinked", status: 17015)
        public static let noSuchProvider = Code(name: "noSuchProvider", status: 17016)
        public static let userMismatch = Code(name: "userMismatch", status: 17024)
        public static let credentialAlreadyInUse = Code(name: "credentialAlreadyInUse", status: 17025)
        public static let missingMultiFactorSession = Code(name: "missingMultiFactorSession", status: 17081)
        public static let missingMultiFactorInfo = Code(name: "missingMultiFactorInfo", status: 17082)
        public static let invalidMultiFactorSession = Code(name: "invalidMultiFactorSession", status: 17083)
        public static let multiFactorInfoNotFound = Code(name: "multiFactorInfoNotFound", status: 17084)
        public static let secondFactorAlreadyEnrolled = Code(name: "secondFactorAlreadyEnrolled", status: 17087)
        public static let maximumSecondFactorCountExceeded = Code(name: "maximumSecondFactorCountExceeded", status: 17088)
        public static let unsupportedFirstFactor = Code(name: "unsupportedFirstFactor", status: 17089)
        public static let internalError = Code(name: "internalError", status: 17999)
        public static let invalidArgument = Code(name: "invalidArgument", status: 18000)
        public static let invalidConfiguration = Code(name: "invalidConfiguration", status: 18001)
        public static let unknownMethod = Code(name: "unknownMethod", status: 18002)
        public static let storageError = Code(name: "storageError", status: 18003)
        public static let invalidIdToken = Code(name: "invalidIdToken", status: 18004)
        public static let idTokenRevoked = Code(name: "idTokenRevoked", status: 18005)
        public static let phoneNumberAlreadyExists = Code(name: "phoneNumberAlreadyExists", status: 18006)
        public static let uidAlreadyExists = Code(name: "uidAlreadyExists", status: 18007)

        public static let all: [Code] = [
            .invalidCustomToken, .customTokenMismatch, .invalidCredential, .userDisabled, .operationNotAllowed, .tooManyRequests, .userNotFound,
            .invalidUserToken, .userTokenExpired, .missingPhoneNumber, .invalidPhoneNumber,
            .missingVerificationCode, .invalidVerificationCode, .missingVerificationID,
            .invalidVerificationID, .sessionExpired, .quotaExceeded, .missingAppCredential, .invalidAppCredential, .missingAppToken,
            .appNotVerified, .captchaCheckFailed,
            .secondFactorRequired, .requiresRecentLogin, .providerAlreadyLinked, .noSuchProvider, .userMismatch,
            .credentialAlreadyInUse, .missingMultiFactorSession, .missingMultiFactorInfo, .invalidMultiFactorSession,
            .multiFactorInfoNotFound, .secondFactorAlreadyEnrolled, .maximumSecondFactorCountExceeded, .unsupportedFirstFactor,
            .internalError, .invalidArgument, .invalidConfiguration,
            .unknownMethod, .storageError, .invalidIdToken, .idTokenRevoked, .phoneNumberAlreadyExists, .uidAlreadyExists,
        ]

        /// Static text for each status, for phoneauth_strerror: "name: what it means".
        public var summary: StaticString {
            switch name {
            case "invalidCustomToken": return "invalidCustomToken: the custom token is not valid"
            case "customTokenMismatch": return "customTokenMismatch: the custom token is for another project"
            case "invalidCredential": return "invalidCredential: the credential is malformed"
            case "userDisabled": return "userDisabled: the user account is disabled"
            case "operationNotAllowed": return "operationNotAllowed: the operation is not allowed by configuration"
            case "tooManyRequests": return "tooManyRequests: too many requests"
            case "userNotFound": return "userNotFound: no such user"
            case "invalidUserToken": return "invalidUserToken: the refresh token is not valid"
            case "userTokenExpired": return "userTokenExpired: the ID token has expired"
            case "missingPhoneNumber": return "missingPhoneNumber: the phone number is missing"
            case "invalidPhoneNumber": return "invalidPhoneNumber: the phone number is not valid"
            case "missingVerificationCode": return "missingVerificationCode: the verification code is missing"
            case "invalidVerificationCode": return "invalidVerificationCode: the verification code is not correct"
            case "missingVerificationID": return "missingVerificationID: the verification ID is missing"
            case "invalidVerificationID": return "invalidVerificationID: the verification ID is not valid"
            case "sessionExpired": return "sessionExpired: the verification can no longer be used"
            case "quotaExceeded": return "quotaExceeded: a quota is exhausted"
            case "missingAppCredential": return "missingAppCredential: the app verification proof is missing"
            case "invalidAppCredential": return "invalidAppCredential: the app verification proof is not valid"
            case "missingAppToken": return "missingAppToken: the app's push token is missing"
            case "captchaCheckFailed": return "captchaCheckFailed: the captcha check failed"
            case "appNotVerified": return "appNotVerified: the app could not be verified"
            case "secondFactorRequired": return "secondFactorRequired: a second factor is required"
            case "requiresRecentLogin": return "requiresRecentLogin: the operation needs a recent sign-in"
            case "providerAlreadyLinked": return "providerAlreadyLinked: the account already has a credential of this provider"
            case "noSuchProvider": return "noSuchProvider: the account has no credential of this provider"
            case "userMismatch": return "userMismatch: the credential belongs to another user"
            case "credentialAlreadyInUse": return "credentialAlreadyInUse: another account already has this credential"
            case "missingMultiFactorSession": return "missingMultiFactorSession: the multi-factor session is missing"
            case "missingMultiFactorInfo": return "missingMultiFactorInfo: the second factor is missing"
            case "invalidMultiFactorSession": return "invalidMultiFactorSession: the multi-factor session is not valid"
            case "multiFactorInfoNotFound": return "multiFactorInfoNotFound: no such second factor"
            case "secondFactorAlreadyEnrolled": return "secondFactorAlreadyEnrolled: the second factor is already enrolled"
            case "maximumSecondFactorCountExceeded": return "maximumSecondFactorCountExceeded: the user has the maximum number of second factors"
            case "unsupportedFirstFactor": return "unsupportedFirstFactor: the credential cannot be a first factor"
            case "internalError": return "internalError: internal error"
            case "invalidArgument": return "invalidArgument: invalid argument"
            case "invalidConfiguration": return "invalidConfiguration: invalid configuration"
            case "unknownMethod": return "unknownMethod: unknown method"
            case "storageError": return "storageError: the database cannot be used"
            case "invalidIdToken": return "invalidIdToken: the ID token is not valid"
            case "idTokenRevoked": return "idTokenRevoked: the ID token has been revoked"
            case "phoneNumberAlreadyExists": return "phoneNumberAlreadyExists: another user has this phone number"
            case "uidAlreadyExists": return "uidAlreadyExists: another user has this uid"
            default: return "unknown status"
            }
        }
    }

    /// The error object every failure turns into across the ABI.
    public var jsonValue: JSONValue {
        .object([("error", .object([
            ("code", .string(code.name)),
            ("status", .int(Int64(code.status))),
            ("message", .string(message)),
            ("details", .object(details)),
        ]))])
    }
}
