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
    /// key or `{"retryAfterSeconds": 60}` for a limit; `{}` when there is nothing more. Secrets (a
    /// temporary proof, a challenge's session) and whole numbers are left out (they have
    /// properties of their own), so it can be logged.
    public let detailsJSON: String
    /// A second-factor challenge, when ``code`` is ``Code/secondFactorRequired``.
    public let multiFactorChallenge: MultiFactorChallenge?
    /// When ``code`` is ``Code/credentialAlreadyInUse``: a proof that the caller has the number,
    /// which `PhoneCredential(temporaryProof:)` turns into a sign-in to the account that has it.
    /// A secret: it is not part of ``description`` or ``detailsJSON``.
    public let temporaryProof: String?
    /// When ``code`` is ``Code/credentialAlreadyInUse``: the number (E.164) the credential proved,
    /// which the other account has. Left out of ``description`` and ``detailsJSON`` like any
    /// whole number.
    public let phoneNumber: String?
    /// The error as the core reported it, every detail kept: phoneauthd renders it in Firebase's
    /// shape without reading ``detailsJSON`` back.
    package let core: PhoneAuthCore.PhoneAuthError

    init(_ error: PhoneAuthCore.PhoneAuthError) {
        core = error
        code = Code(error.code)
        message = error.message
        let details = JSONValue.object(error.details)
        temporaryProof = details["temporaryProof"]?.stringValue
        phoneNumber = error.code == .credentialAlreadyInUse ? details["phoneNumber"]?.stringValue : nil
        // The secrets have their own properties: what is left can be logged.
        detailsJSON = JSONCodec.serialize(.object(error.details.filter { !Self.secretDetails.contains($0.0) }))
        multiFactorChallenge = error.code == .secondFactorRequired ? MultiFactorChallenge(details: error.details) : nil
    }

    /// Any error the core throws, as a PhoneAuthError (an unexpected one is `internalError`).
    init(_ error: any Error, during what: String) {
        self.init(PhoneAuthCore.PhoneAuthError.from(error, during: what))
    }

    /// "code: message", which can be logged.
    public var description: String { "\(code.name): \(message)" }

    /// Details that have properties of their own and must not be logged: a temporary proof, a
    /// second-factor session (secrets), a whole number.
    private static let secretDetails: Set<String> = ["temporaryProof", "session", "phoneNumber"]

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

        /// The code's name.
        public var description: String { name }

        /// The custom token is not valid.
        public static let invalidCustomToken = Code(.invalidCustomToken)
        /// The custom token is for another project.
        public static let customTokenMismatch = Code(.customTokenMismatch)
        /// The credential is malformed.
        public static let invalidCredential = Code(.invalidCredential)
        /// The user account is disabled.
        public static let userDisabled = Code(.userDisabled)
        /// The operation is not allowed by configuration.
        public static let operationNotAllowed = Code(.operationNotAllowed)
        /// Too many requests.
        public static let tooManyRequests = Code(.tooManyRequests)
        /// No such user.
        public static let userNotFound = Code(.userNotFound)
        /// The refresh token is not valid.
        public static let invalidUserToken = Code(.invalidUserToken)
        /// The ID token has expired.
        public static let userTokenExpired = Code(.userTokenExpired)
        /// The phone number is missing.
        public static let missingPhoneNumber = Code(.missingPhoneNumber)
        /// The phone number is not valid.
        public static let invalidPhoneNumber = Code(.invalidPhoneNumber)
        /// The verification code is missing.
        public static let missingVerificationCode = Code(.missingVerificationCode)
        /// The verification code is not correct.
        public static let invalidVerificationCode = Code(.invalidVerificationCode)
        /// The verification ID is missing.
        public static let missingVerificationID = Code(.missingVerificationID)
        /// The verification ID is not valid.
        public static let invalidVerificationID = Code(.invalidVerificationID)
        /// The verification can no longer be used.
        public static let sessionExpired = Code(.sessionExpired)
        /// A quota is exhausted.
        public static let quotaExceeded = Code(.quotaExceeded)
        /// The app verification proof is missing.
        public static let missingAppCredential = Code(.missingAppCredential)
        /// The app verification proof is not valid.
        public static let invalidAppCredential = Code(.invalidAppCredential)
        /// The app's push token is missing.
        public static let missingAppToken = Code(.missingAppToken)
        /// The captcha check failed.
        public static let captchaCheckFailed = Code(.captchaCheckFailed)
        /// The app could not be verified.
        public static let appNotVerified = Code(.appNotVerified)
        /// A second factor is required.
        public static let secondFactorRequired = Code(.secondFactorRequired)
        /// The operation needs a recent sign-in.
        public static let requiresRecentLogin = Code(.requiresRecentLogin)
        /// The account already has a credential of this provider.
        public static let providerAlreadyLinked = Code(.providerAlreadyLinked)
        /// The account has no credential of this provider.
        public static let noSuchProvider = Code(.noSuchProvider)
        /// The credential belongs to another user.
        public static let userMismatch = Code(.userMismatch)
        /// Another account already has this credential.
        public static let credentialAlreadyInUse = Code(.credentialAlreadyInUse)
        /// The multi-factor session is missing.
        public static let missingMultiFactorSession = Code(.missingMultiFactorSession)
        /// The second factor is missing.
        public static let missingMultiFactorInfo = Code(.missingMultiFactorInfo)
        /// The multi-factor session is not valid.
        public static let invalidMultiFactorSession = Code(.invalidMultiFactorSession)
        /// No such second factor.
        public static let multiFactorInfoNotFound = Code(.multiFactorInfoNotFound)
        /// The second factor is already enrolled.
        public static let secondFactorAlreadyEnrolled = Code(.secondFactorAlreadyEnrolled)
        /// The user has the maximum number of second factors.
        public static let maximumSecondFactorCountExceeded = Code(.maximumSecondFactorCountExceeded)
        /// The credential cannot be a first factor.
        public static let unsupportedFirstFactor = Code(.unsupportedFirstFactor)
        /// A blocking hook (`beforeSendSms`, …) refused the operation; the message is the hook's.
        public static let blockingFunctionError = Code(.blockingFunctionError)
        /// Internal error.
        public static let internalError = Code(.internalError)
        /// Invalid argument.
        public static let invalidArgument = Code(.invalidArgument)
        /// Invalid configuration.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// Unknown method.
        public static let unknownMethod = Code(.unknownMethod)
        /// The database cannot be used.
        public static let storageError = Code(.storageError)
        /// The ID token is not valid.
        public static let invalidIdToken = Code(.invalidIdToken)
        /// The ID token has been revoked.
        public static let idTokenRevoked = Code(.idTokenRevoked)
        /// Another user has this phone number.
        public static let phoneNumberAlreadyExists = Code(.phoneNumberAlreadyExists)
        /// Another user has this uid.
        public static let uidAlreadyExists = Code(.uidAlreadyExists)
        /// The call needs an admin token (phoneauthd).
        public static let insufficientPermission = Code(.insufficientPermission)
        /// The API key is missing or not valid (phoneauthd).
        public static let invalidApiKey = Code(.invalidApiKey)
        /// `tenantId` names no tenant.
        public static let tenantNotFound = Code(.tenantNotFound)
        /// The tenant still has users (deleteTenant).
        public static let tenantNotEmpty = Code(.tenantNotEmpty)
        /// A custom token or an imported user is of another tenant than the call names.
        public static let tenantIdMismatch = Code(.tenantIdMismatch)
    }
}
