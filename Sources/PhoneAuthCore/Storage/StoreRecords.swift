// The plain values that cross the `Store` protocol. They carry hashes and sealed bytes, never
// codes, tokens or message bodies in clear.

/// A key kept in the store, sealed under the master key.
package struct StoredSecret: Sendable {
    package var kid: String
    package var kind: String
    package var sealed: [UInt8]
    package var createdAt: Timestamp
    /// A signing key's end: after it, the key verifies nothing and leaves the JWKS (nil: current).
    package var retireAt: Timestamp? = nil
    /// For a signing key made current by a configuration change: when the others retire.
    package var retireAtOfOthers: Timestamp? = nil
}

package struct NewVerification: Sendable {
    package var id: String
    package var phone: String
    package var codeHash: [UInt8]
    package var createdAt: Timestamp
    package var expiresAt: Timestamp
    /// nil for test numbers, which send no SMS.
    package var outbox: NewOutboxMessage?
    /// What the code may be used for, and for whom (see VerificationPurpose).
    package var purpose = VerificationPurpose.signIn
    package var subject: String? = nil
}

/// What a verification's code may be used for. A code sent for one purpose is refused for any other.
package enum VerificationPurpose: String, Sendable {
    /// First-factor sign-in, linking, phone number change, re-authentication.
    case signIn
    /// Enrolling the number as a second factor of the user named by `subject`.
    case enroll
    /// The second factor of the multi-factor session named by `subject`.
    case mfaSignIn
    /// A temporary proof (no SMS; the code is a secret) that signs in the user `subject`, who
    /// had the number when the proof was made.
    case temporaryProof
}

package struct NewOutboxMessage: Sendable {
    package var languageCode: String
    package var sealedBody: [UInt8]
}

package enum VerificationStart: Sendable {
    case created
    /// A verification for the same number started inside the resend window: reuse it.
    case reused(id: String, createdAt: Timestamp, expiresAt: Timestamp)
    /// The latest verification, started inside the resend window, died of wrong codes.
    case blocked(since: Timestamp)
    /// A send limit refused it: nothing was written or sent.
    case limited(LimitTrip)
    /// Too many wrong codes in a row for the number: it is locked until then.
    case numberLocked(until: Timestamp)
}

/// The send limits a new verification is checked against in its transaction (0: no limit).
/// Test numbers have none.
package struct SendLimits: Sendable {
    package var region: String
    package var clientIp: String?
    package var perNumberPerHour: Int
    package var perIpPerHour: Int
    package var perProjectPerDay: Int
    package var perRegionPerDay: Int
    package var regionBurstPerHour: Int
}

/// The wrong-code limits checked with each code (0: no limit). Numbers in `exempt` (the test
/// numbers) are neither counted nor locked.
package struct CheckLimits: Sendable {
    /// Wrong codes in a row before the first lockout, and after each lockout before the next.
    package var maxConsecutiveFailures: Int
    package var failuresBetweenLockouts: Int
    /// The first lockout's length; each next one doubles, up to the maximum.
    package var lockoutMilliseconds: Int64
    package var maxLockoutMilliseconds: Int64
    package var clientIp: String?
    package var wrongCodesPerIpPer5Minutes: Int
    package var exempt: Set<String>

    package static let none = CheckLimits(maxConsecutiveFailures: 0, failuresBetweenLockouts: 0, lockoutMilliseconds: 0, maxLockoutMilliseconds: 0,
                                         clientIp: nil, wrongCodesPerIpPer5Minutes: 0, exempt: [])

    /// The length of a number's `lockouts`-th lockout (counting from 1).
    package func lockoutLength(_ lockouts: Int) -> Int64 {
        let doublings = min(max(lockouts - 1, 0), 40)
        // A long first lockout doubled 40 times leaves Int64: then it is simply the longest.
        let (length, overflow) = lockoutMilliseconds.multipliedReportingOverflow(by: Int64(1) << doublings)
        return overflow ? maxLockoutMilliseconds : min(maxLockoutMilliseconds, length)
    }
}

/// A limit that refused a call: its configuration key, what it counts (a masked number, an IP
/// address, a region or "project"), and when trying again may succeed.
package final class LimitTrip: Sendable {
    package let limit: LimitName
    package let scope: String
    package let retryAfterSeconds: Int64
    /// A quota of the whole project or a region (quotaExceeded), not of one caller (tooManyRequests).
    package let isQuota: Bool

    package init(limit: LimitName, scope: String, retryAfterSeconds: Int64, isQuota: Bool) {
        self.limit = limit
        self.scope = scope
        self.retryAfterSeconds = retryAfterSeconds
        self.isQuota = isQuota
    }
}

package struct UserRecord: Sendable {
    package var uid: String
    package var phoneNumber: String?
    package var displayName: String?
    package var disabled: Bool
    package var createdAt: Timestamp
    package var lastSignInAt: Timestamp?
    package var validSince: Timestamp?
    /// JSON object text set by setCustomUserClaims; every new ID token carries its members.
    package var customClaims: String? = nil
    /// Second factors, in enrolment order.
    package var factors: [EnrolledFactor] = []
}

/// A second factor of a user: a phone number that receives codes, or a TOTP authenticator.
package struct EnrolledFactor: Sendable {
    package var enrollmentId: String
    package var factorId: FactorKind
    package var displayName: String?
    package var phoneNumber: String?
    package var enrolledAt: Timestamp
}

/// A second factor about to be enrolled; `sealedSecret` is a TOTP factor's secret.
package struct NewFactor: Sendable {
    package var enrollmentId: String
    package var factorId: FactorKind
    package var displayName: String?
    package var sealedSecret: [UInt8]? = nil
    package var maxFactors: Int
}

/// A pending multi-factor session: after a first factor or a handed-out TOTP secret.
package struct NewMFASession: Sendable {
    package var id: String
    package var kind: MFASessionKind
    package var expiresAt: Timestamp
    package var sealedSecret: [UInt8]? = nil
}

/// What updateUser changes: nil leaves a field; `.some(nil)` clears an optional one.
package struct UserChanges: Sendable {
    package var disabled: Bool?
    package var displayName: String??
    package var phoneNumber: String??
    package var customClaims: String??

    package init(disabled: Bool? = nil, displayName: String?? = nil, phoneNumber: String?? = nil, customClaims: String?? = nil) {
        self.disabled = disabled
        self.displayName = displayName
        self.phoneNumber = phoneNumber
        self.customClaims = customClaims
    }
}

/// What updateUser or createUser did.
package enum UpdateUserOutcome: Sendable {
    case updated(UserRecord)
    case notFound
    /// createUser: a user with that uid exists.
    case uidTaken
    case phoneNumberTaken
    /// The number is enrolled as an SMS second factor, so it cannot be a user's phone number.
    case phoneIsSecondFactor
}

/// What a successful code check turns into: the uid to use if the number has no user yet, and
/// the new session's identifiers.
package struct NewSignIn: Sendable {
    package var newUid: String
    package var sessionId: String
    /// SHA-256 of the first refresh token's secret.
    package var refreshSecretHash: [UInt8]
    /// How the session began and the custom token's claims as JSON text: every ID token of the
    /// session carries them.
    package var provider = SignInProvider.phone
    package var developerClaims: String? = nil
    /// When the user last proved a first factor (nil: now); kept when a session is re-issued.
    package var authTime: Timestamp? = nil
    /// The second factor this session was signed in with: factorId and enrollment ID.
    package var secondFactor: FactorKind? = nil
    package var secondFactorEnrollment: String? = nil
    /// Opened instead of the session when the user has second factors.
    package var challenge: NewMFASession? = nil
}


/// What a session's ID tokens are made from. A class: as a large struct inside RefreshOutcome it
/// made Swift read the enum's tag from bytes valgrind considers uninitialised.
package final class SessionInfo: Sendable {
    package let user: UserRecord
    package let sessionId: String
    package let authTime: Timestamp
    package let provider: SignInProvider
    package let developerClaims: String?
    package let secondFactor: FactorKind?
    package let secondFactorEnrollment: String?

    package init(user: UserRecord, sessionId: String, authTime: Timestamp, provider: SignInProvider,
                 developerClaims: String?, secondFactor: FactorKind? = nil, secondFactorEnrollment: String? = nil) {
        self.user = user
        self.sessionId = sessionId
        self.authTime = authTime
        self.provider = provider
        self.developerClaims = developerClaims
        self.secondFactor = secondFactor
        self.secondFactorEnrollment = secondFactorEnrollment
    }
}

/// Why a one-time code (SMS or TOTP) was not accepted.
package enum CodeRejection: Error, Sendable {
    case wrongCode(attemptsLeft: Int)
    case unusable(reason: UnusableCodeReason)
    case unknown
    /// Too many wrong codes from the caller's IP address.
    case limited(LimitTrip)
    /// Too many wrong codes in a row for the number; `justLocked` when this code locked it.
    case numberLocked(phone: String, until: Timestamp, justLocked: Bool)
}

/// What an account operation refused, when the code (if any) was right.
package enum AccountRefusal: Sendable {
    case sessionEnded, userNotFound, userDisabled, providerAlreadyLinked, noSuchProvider, userMismatch,
         unsupportedFirstFactor, secondFactorAlreadyEnrolled, maximumSecondFactorCountExceeded,
         invalidMultiFactorSession, multiFactorInfoNotFound
    /// Another user has `phone`, the number the code proved.
    case credentialAlreadyInUse(phone: String)
}

/// The outcome of every store transaction that signs a user in or changes an account.
package enum AccountOutcome: Sendable {
    /// A session was opened: what its tokens are made from.
    case signedIn(SessionInfo, isNewUser: Bool)
    /// Done without a session; the user as it now is.
    case done(UserRecord)
    case rejected(CodeRejection)
    case refused(AccountRefusal)
    /// The user has second factors: the challenge session was opened instead of a session.
    case secondFactorRequired(UserRecord)
    /// Too many wrong codes for this factor: it is locked until then.
    case locked(until: Timestamp)
}

package enum RefreshOutcome: Sendable {
    /// The session moved to the token's next generation, with the new secret hash.
    case rotated(SessionInfo)
    /// The token was the previous generation, presented again within the reuse interval: the
    /// current generation's token, whose secret is `sealedSecret`, is handed out again.
    case reissued(SessionInfo, generation: Int64, sealedSecret: [UInt8])
    case unknown
    case revoked(reason: RevocationReason)
    case userDisabled
}

package struct OutboxMessage: Sendable {
    package var verificationId: String
    package var phone: String
    package var languageCode: String
    package var sealedBody: [UInt8]
    package var attempts: Int
    package var purpose: VerificationPurpose
    /// When its code expires: after that the message is not worth sending.
    package var expiresAt: Timestamp
}

/// A message reserved for one engine's delivery worker (`owner`, random per worker) until `until`.
package struct DeliveryLease: Sendable {
    package var owner: String
    package var until: Timestamp

    package init(owner: String, until: Timestamp) {
        self.owner = owner
        self.until = until
    }
}

/// What became of an attempt to deliver a message, as the outbox records it.
package enum DeliveryOutcome: Sendable {
    case sent(verificationId: String, provider: String?, messageId: String?)
    /// Counts as an attempt; tried again at `retryAt` unless the attempts are used up.
    case failed(verificationId: String, provider: String?, reason: String, retryAt: Timestamp)
    /// The number cannot receive SMS: never tried again.
    case undeliverable(verificationId: String, provider: String?, reason: String)
    /// No provider could be tried: not an attempt; due again at `until`.
    case deferred(verificationId: String, until: Timestamp)

    package var verificationId: String {
        switch self {
        case let .sent(id, _, _), let .failed(id, _, _, _), let .undeliverable(id, _, _), let .deferred(id, _): return id
        }
    }
}

package struct VerificationStatus: Sendable {
    package var id: String
    package var phone: String
    package var state: String
    package var expiresAt: Timestamp
    /// pending, sent, failed, or none (test numbers)
    package var delivery: String
    package var attempts: Int
    /// The provider of the last attempt, the ID it gave the message, and why the last attempt failed.
    package var provider: String?
    package var providerMessageId: String?
    package var deliveryError: String?
}

/// What a store has done since it opened: for benchmarks and monitoring.
package struct StoreStatistics: Sendable {
    package var driver: String
    package var poolSize: Int
    package var transactions: Int
    /// Transactions run again after a conflict with another engine's, or a broken connection.
    package var retries: Int
    /// Statements sent to the database (each one round trip to a PostgreSQL server).
    package var roundTrips: Int
}
