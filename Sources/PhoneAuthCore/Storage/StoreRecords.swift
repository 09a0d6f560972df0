// The plain values that cross the `Store` protocol. They carry hashes and sealed bytes, never
// codes, tokens or message bodies in clear.

/// A key kept in the store, sealed under the master key.
public struct StoredSecret: Sendable {
    public var kid: String
    public var kind: String
    public var sealed: [UInt8]
    public var createdAt: Timestamp
}

public struct NewVerification: Sendable {
    public var id: String
    public var phone: String
    public var codeHash: [UInt8]
    public var createdAt: Timestamp
    public var expiresAt: Timestamp
    /// nil for test numbers, which send no SMS.
    public var outbox: NewOutboxMessage?
}

public struct NewOutboxMessage: Sendable {
    public var languageCode: String
    public var sealedBody: [UInt8]
}

public enum VerificationStart: Sendable {
    case created
    /// A verification for the same number started inside the resend window: reuse it.
    case reused(id: String, createdAt: Timestamp, expiresAt: Timestamp)
    /// The latest verification, started inside the resend window, died of wrong codes.
    case blocked(since: Timestamp)
}

public struct UserRecord: Sendable {
    public var uid: String
    public var phoneNumber: String?
    public var displayName: String?
    public var disabled: Bool
    public var createdAt: Timestamp
    public var lastSignInAt: Timestamp?
    public var validSince: Timestamp?
    /// JSON object text set by setCustomUserClaims; every new ID token carries its members.
    public var customClaims: String? = nil
}

/// What updateUser changes: nil leaves a field; `.some(nil)` clears an optional one.
public struct UserChanges: Sendable {
    public var disabled: Bool?
    public var displayName: String??
    public var phoneNumber: String??
    public var customClaims: String??

    public init(disabled: Bool? = nil, displayName: String?? = nil, phoneNumber: String?? = nil, customClaims: String?? = nil) {
        self.disabled = disabled
        self.displayName = displayName
        self.phoneNumber = phoneNumber
        self.customClaims = customClaims
    }
}

public enum UpdateUserOutcome: Sendable {
    case updated(UserRecord)
    case notFound
    case phoneNumberTaken
}

/// What a successful code check turns into: the uid to use if the number has no user yet, and
/// the new session's identifiers.
public struct NewSignIn: Sendable {
    public var newUid: String
    public var sessionId: String
    /// SHA-256 of the first refresh token's secret.
    public var refreshSecretHash: [UInt8]
    /// How the session began ("phone", "custom") and the custom token's claims as JSON text:
    /// every ID token of the session carries them.
    public var provider: String = "phone"
    public var developerClaims: String? = nil
}

public enum UserSignInOutcome: Sendable {
    case signedIn(UserRecord, isNewUser: Bool)
    case userDisabled
}

/// What a session's ID tokens are made from. A class: as a large struct inside RefreshOutcome it
/// made Swift read the enum's tag from bytes valgrind considers uninitialised.
public final class SessionInfo: Sendable {
    public let user: UserRecord
    public let authTime: Timestamp
    public let provider: String
    public let developerClaims: String?

    init(user: UserRecord, authTime: Timestamp, provider: String, developerClaims: String?) {
        self.user = user
        self.authTime = authTime
        self.provider = provider
        self.developerClaims = developerClaims
    }
}

public enum RedeemOutcome: Sendable {
    case signedIn(UserRecord, isNewUser: Bool)
    case wrongCode(attemptsLeft: Int)
    /// expired, tooManyAttempts, alreadyUsed or replaced
    case unusable(reason: String)
    case unknown
    case userDisabled
}

public enum RefreshOutcome: Sendable {
    /// The session moved to the token's next generation, with the new secret hash.
    case rotated(SessionInfo)
    case unknown
    /// signedOut, reused, revoked or userDisabled
    case revoked(reason: String)
    case userDisabled
}

public struct OutboxMessage: Sendable {
    public var verificationId: String
    public var phone: String
    public var languageCode: String
    public var sealedBody: [UInt8]
    public var attempts: Int
}

public enum DeliveryOutcome: Sendable {
    case sent(verificationId: String)
    case failed(verificationId: String)
}

public struct VerificationStatus: Sendable {
    public var id: String
    public var phone: String
    public var state: String
    public var expiresAt: Timestamp
    /// pending, sent, failed, or none (test numbers)
    public var delivery: String
    public var attempts: Int
}
