#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PhoneAuthCore

/// What a sign-in of an account with second factors gets instead of tokens, in
/// ``PhoneAuthError/multiFactorChallenge``: a single-use session and a hint per factor. Send a
/// code to one factor with `sendSecondFactorCode(session:enrollmentID:languageCode:clientIP:)`,
/// then finish with `resolveSignIn(session:credential:clientIP:)`.
public struct MultiFactorChallenge: Sendable, Hashable {
    /// The challenge's session: a secret until the sign-in is finished or it expires.
    public let session: String
    /// When the session stops working.
    public let expiresAt: Date
    /// The account's factors; phone numbers show only their last four digits.
    public let hints: [SecondFactor]

    init?(details: [(String, JSONValue)]) {
        let object = JSONValue.object(details)
        guard let session = object["session"]?.stringValue else { return nil }
        self.session = session
        expiresAt = Date(
            object["expiresAt"]?.stringValue.flatMap { Timestamp(rfc3339: $0) } ?? Timestamp(milliseconds: 0))
        if case let .array(hints)? = object["hints"] {
            self.hints = hints.map(SecondFactor.init(hint:))
        } else {
            hints = []
        }
    }
}
