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
    /// The claims a beforeSignIn hook gave this session (JSON object text): they override the
    /// user's custom claims of the same name.
    package let sessionClaims: String?

    package init(
        user: UserRecord, sessionId: String, authTime: Timestamp, provider: SignInProvider,
        developerClaims: String?, secondFactor: FactorKind? = nil, secondFactorEnrollment: String? = nil,
        sessionClaims: String? = nil
    ) {
        self.user = user
        self.sessionId = sessionId
        self.authTime = authTime
        self.provider = provider
        self.developerClaims = developerClaims
        self.secondFactor = secondFactor
        self.secondFactorEnrollment = secondFactorEnrollment
        self.sessionClaims = sessionClaims
    }
}
