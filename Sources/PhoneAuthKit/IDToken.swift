#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PhoneAuthCore

/// The claims of an ID token that `verifyIDToken(_:checkRevoked:)` found valid.
public struct IDToken: Sendable, Hashable {
    /// The user's ID (`sub`).
    public let uid: String
    /// The user's number (`phone_number`), if the account has one.
    public let phoneNumber: String?
    /// When the user signed in (`auth_time`).
    public let authTime: Date
    /// When the token was issued (`iat`).
    public let issuedAt: Date
    /// When the token stops being valid (`exp`).
    public let expiresAt: Date
    /// The tenant of the token's user (`firebase.tenant`); nil for the default pool.
    public let tenantID: String?
    /// Every claim, custom ones included, as the JSON text of an object.
    public let claimsJSON: String

    init(_ claims: JSONValue) {
        func date(_ key: String) -> Date { Date(timeIntervalSince1970: Double(claims[key]?.intValue ?? 0)) }
        uid = claims["sub"]?.stringValue ?? ""
        phoneNumber = claims["phone_number"]?.stringValue
        authTime = date("auth_time")
        issuedAt = date("iat")
        expiresAt = date("exp")
        tenantID = claims["firebase"]?["tenant"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        claimsJSON = JSONCodec.serialize(claims)
    }
}
