#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PhoneAuthCore

/// An account.
public struct User: Sendable, Hashable {
    /// The account's ID: the ID token's `sub`.
    public let uid: String
    /// The number it signs in with (E.164), if it has one.
    public let phoneNumber: String?
    /// A name for people, if one was set.
    public let displayName: String?
    /// A disabled account cannot sign in, and its tokens stop working.
    public let disabled: Bool
    /// When the account was created.
    public let createdAt: Date
    /// When the account last signed in, if ever.
    public let lastSignInAt: Date?
    /// ID tokens issued before this time fail `verifyIDToken(_:checkRevoked:)` with
    /// `checkRevoked` (set by `revokeRefreshTokens(uid:)`); nil if the sessions were never revoked.
    public let tokensValidAfter: Date?
    /// The claims every new ID token carries, as the JSON text of an object
    /// (`setCustomUserClaims(uid:claimsJSON:)`).
    public let customClaimsJSON: String?
    /// The account's second factors, in the order they were enrolled.
    public let secondFactors: [SecondFactor]
    /// The account's passkeys, oldest first (`finishPasskeyEnrollment(idToken:credential:name:)`).
    public let passkeys: [Passkey]
    /// The tenant the account belongs to (``PhoneAuth/tenant(_:)``); nil for the default pool.
    public let tenantID: String?
    /// The core's user this one was made from: what phoneauthd renders in Firebase's dialects.
    package let record: UserRecord

    /// The one place a `User` is made: every field from the core's user.
    init(_ record: UserRecord) {
        self.record = record
        uid = record.uid
        phoneNumber = record.phoneNumber
        displayName = record.displayName
        disabled = record.disabled
        createdAt = Date(record.createdAt)
        lastSignInAt = record.lastSignInAt.map(Date.init)
        tokensValidAfter = record.validSince.map(Date.init)
        customClaimsJSON = record.customClaims
        secondFactors = record.factors.map(SecondFactor.init)
        passkeys = record.passkeys.map(Passkey.init)
        tenantID = record.tenant.named
    }
}
