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

    /// Error codes, with Firebase's AuthErrorCode name and number where the meaning is the same.
    /// A struct over raw values so that new codes can be added without breaking callers.
    package struct Code: Hashable, Sendable {
        package let name: String
        package let status: Int32

        package static let invalidCustomToken = Code(name: "invalidCustomToken", status: 17000)
        package static let customTokenMismatch = Code(name: "customTokenMismatch", status: 17002)
        package static let invalidCredential = Code(name: "invalidCredential", status: 17004)
        package static let userDisabled = Code(name: "userDisabled", status: 17005)
        package static let operationNotAllowed = Code(name: "operationNotAllowed", status: 17006)
        package static let tooManyRequests = Code(name: "tooManyRequests", status: 17010)
        package static let userNotFound = Code(name: "userNotFound", status: 17011)
        package static let invalidUserToken = Code(name: "invalidUserToken", status: 17017)
        package static let userTokenExpired = Code(name: "userTokenExpired", status: 17021)
        package static let missingPhoneNumber = Code(name: "missingPhoneNumber", status: 17041)
        package static let invalidPhoneNumber = Code(name: "invalidPhoneNumber", status: 17042)
        package static let missingVerificationCode = Code(name: "missingVerificationCode", status: 17043)
        package static let invalidVerificationCode = Code(name: "invalidVerificationCode", status: 17044)
        package static let missingVerificationID = Code(name: "missingVerificationID", status: 17045)
        package static let invalidVerificationID = Code(name: "invalidVerificationID", status: 17046)
        package static let sessionExpired = Code(name: "sessionExpired", status: 17051)
        package static let quotaExceeded = Code(name: "quotaExceeded", status: 17052)
        package static let missingAppCredential = Code(name: "missingAppCredential", status: 17047)
        package static let invalidAppCredential = Code(name: "invalidAppCredential", status: 17048)
        package static let missingAppToken = Code(name: "missingAppToken", status: 17053)
        package static let captchaCheckFailed = Code(name: "captchaCheckFailed", status: 17056)
        package static let appNotVerified = Code(name: "appNotVerified", status: 17055)
        package static let secondFactorRequired = Code(name: "secondFactorRequired", status: 17078)
        package static let requiresRecentLogin = Code(name: "requiresRecentLogin", status: 17014)
        package static let providerAlreadyLinked = Code(name: "providerAlreadyLinked", status: 17015)
        package static let noSuchProvider = Code(name: "noSuchProvider", status: 17016)
        package static let userMismatch = Code(name: "userMismatch", status: 17024)
        package static let credentialAlreadyInUse = Code(name: "credentialAlreadyInUse", status: 17025)
        package static let missingMultiFactorSession = Code(name: "missingMultiFactorSession", status: 17081)
        package static let missingMultiFactorInfo = Code(name: "missingMultiFactorInfo", status: 17082)
        package static let invalidMultiFactorSession = Code(name: "invalidMultiFactorSession", status: 17083)
        package static let multiFactorInfoNotFound = Code(name: "multiFactorInfoNotFound", status: 17084)
        package static let secondFactorAlreadyEnrolled = Code(name: "secondFactorAlreadyEnrolled", status: 17087)
        package static let maximumSecondFactorCountExceeded = Code(name: "maximumSecondFactorCountExceeded", status: 17088)
        package static let unsupportedFirstFactor = Code(name: "unsupportedFirstFactor", status: 17089)
        package static let internalError = Code(name: "internalError", status: 17999)
        package static let invalidArgument = Code(name: "invalidArgument", status: 18000)
        package static let invalidConfiguration = Code(name: "invalidConfiguration", status: 18001)
        package static let unknownMethod = Code(name: "unknownMethod", status: 18002)
        package static let storageError = Code(name: "storageError", status: 18003)
        package static let invalidIdToken = Code(name: "invalidIdToken", status: 18004)
        package static let idTokenRevoked = Code(name: "idTokenRevoked", status: 18005)
        package static let phoneNumberAlreadyExists = Code(name: "phoneNumberAlreadyExists", status: 18006)
        package static let uidAlreadyExists = Code(name: "uidAlreadyExists", status: 18007)

        package static let all: [Code] = [
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
        package var summary: StaticString {
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
    package var jsonValue: JSONValue {
        .object([("error", .object([
            ("code", .string(code.name)),
            ("status", .int(Int64(code.status))),
            ("message", .string(message)),
            ("details", .object(details)),
        ]))])
    }
}
