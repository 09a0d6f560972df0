import PhoneAuthCore

/// An error from PhoneAuth: the same code, status number, message and details that the C ABI's
/// error object carries (docs/API.md, "Errors").
///
/// Messages are English, for developers; they never hold a code, a token, a secret or a whole
/// phone number, so they can be logged. Match on ``code``:
///
/// ```swift
/// do {
///     let result = try await auth.signIn(with: credential)
/// } catch let error where error.code == .invalidVerificationCode {
///     // ask for the code again
/// }
/// ```
public struct PhoneAuthError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable name and number.
    public let code: Code
    /// What went wrong, for a developer.
    public let message: String
    /// More about it: JSON text of an object, e.g. `{"key": "codeLength"}` for a bad configuration
    /// key or `{"retryAfterSeconds": 60}` for a limit. Empty object when there is nothing more.
    public let detailsJSON: String
    /// A second-factor challenge, when ``code`` is ``Code/secondFactorRequired``.
    public let multiFactorChallenge: MultiFactorChallenge?

    init(_ error: PhoneAuthCore.PhoneAuthError) {
        code = Code(error.code)
        message = error.message
        detailsJSON = JSONCodec.serialize(.object(error.details))
        multiFactorChallenge = error.code == .secondFactorRequired ? MultiFactorChallenge(details: error.details) : nil
    }

    /// Any error the core throws, as a PhoneAuthError (an unexpected one is `internalError`).
    init(_ error: any Error, during what: String) {
        self.init(PhoneAuthCore.PhoneAuthError.from(error, during: what))
    }

    public var description: String { "\(code.name): \(message)" }

    /// An error code: its name (`invalidVerificationCode`) and its status number (17044), the same
    /// as the C ABI's and, where the meaning is the same, as Firebase's `AuthErrorCode`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as in the C ABI's `error.code`.
        public let name: String
        /// The code's number, as the C functions return it.
        public let status: Int32

        init(_ code: PhoneAuthCore.PhoneAuthError.Code) {
            name = code.name
            status = code.status
        }

        public var description: String { name }

        public static let invalidCustomToken = Code(.invalidCustomToken)
        public static let customTokenMismatch = Code(.customTokenMismatch)
        public static let invalidCredential = Code(.invalidCredential)
        public static let userDisabled = Code(.userDisabled)
        public static let operationNotAllowed = Code(.operationNotAllowed)
        public static let tooManyRequests = Code(.tooManyRequests)
        public static let userNotFound = Code(.userNotFound)
        public static let invalidUserToken = Code(.invalidUserToken)
        public static let userTokenExpired = Code(.userTokenExpired)
        public static let missingPhoneNumber = Code(.missingPhoneNumber)
        public static let invalidPhoneNumber = Code(.invalidPhoneNumber)
        public static let missingVerificationCode = Code(.missingVerificationCode)
        public static let invalidVerificationCode = Code(.invalidVerificationCode)
        public static let missingVerificationID = Code(.missingVerificationID)
        public static let invalidVerificationID = Code(.invalidVerificationID)
        public static let sessionExpired = Code(.sessionExpired)
        public static let quotaExceeded = Code(.quotaExceeded)
        public static let missingAppCredential = Code(.missingAppCredential)
        public static let invalidAppCredential = Code(.invalidAppCredential)
        public static let missingAppToken = Code(.missingAppToken)
        public static let captchaCheckFailed = Code(.captchaCheckFailed)
        public static let appNotVerified = Code(.appNotVerified)
        public static let secondFactorRequired = Code(.secondFactorRequired)
        public static let requiresRecentLogin = Code(.requiresRecentLogin)
        public static let providerAlreadyLinked = Code(.providerAlreadyLinked)
        public static let noSuchProvider = Code(.noSuchProvider)
        public static let userMismatch = Code(.userMismatch)
        public static let credentialAlreadyInUse = Code(.credentialAlreadyInUse)
        public static let missingMultiFactorSession = Code(.missingMultiFactorSession)
        public static let missingMultiFactorInfo = Code(.missingMultiFactorInfo)
        public static let invalidMultiFactorSession = Code(.invalidMultiFactorSession)
        public static let multiFactorInfoNotFound = Code(.multiFactorInfoNotFound)
        public static let secondFactorAlreadyEnrolled = Code(.secondFactorAlreadyEnrolled)
        public static let maximumSecondFactorCountExceeded = Code(.maximumSecondFactorCountExceeded)
        public static let unsupportedFirstFactor = Code(.unsupportedFirstFactor)
        public static let internalError = Code(.internalError)
        public static let invalidArgument = Code(.invalidArgument)
        public static let invalidConfiguration = Code(.invalidConfiguration)
        public static let unknownMethod = Code(.unknownMethod)
        public static let storageError = Code(.storageError)
        public static let invalidIdToken = Code(.invalidIdToken)
        public static let idTokenRevoked = Code(.idTokenRevoked)
        public static let phoneNumberAlreadyExists = Code(.phoneNumberAlreadyExists)
        public static let uidAlreadyExists = Code(.uidAlreadyExists)
    }
}
