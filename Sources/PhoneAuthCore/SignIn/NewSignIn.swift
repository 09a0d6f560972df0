/// What a successful code check turns into: the uid to use if the number has no user yet, and
/// the new session's identifiers.
package struct NewSignIn: Sendable {
    package var newUid: String
    /// The pool the user is found or created in.
    package var tenant: TenantID
    package var sessionId: String
    /// SHA-256 of the first refresh token's secret.
    package var refreshSecretHash: [UInt8]
    /// That secret sealed, kept as the session's current one (as refreshes keep theirs) so that
    /// a retried sign-in can hand the session's token out again (nil: not kept).
    package var sealedSecret: [UInt8]? = nil
    /// A used proof (code) presented again since this time is taken for a retry of the call that
    /// used it, and gets what that call opened (nil: never; see SessionService.retryable).
    package var retrySince: Timestamp? = nil
    /// How the session began and the custom token's claims as JSON text: every ID token of the
    /// session carries them.
    package var provider = SignInProvider.phone
    package var developerClaims: String? = nil
    /// When the user last proved a first factor (nil: now); kept when a session is re-issued.
    package var authTime: Timestamp? = nil
    /// The second factor this session was signed in with: factorId and enrollment ID.
    package var secondFactor: FactorKind? = nil
    package var secondFactorEnrollment: String? = nil
    /// Claims a beforeSignIn hook gave the session (JSON object text).
    package var sessionClaims: String? = nil
    /// The sign-in hooks installed: a store that has checked the credential of a sign-in they
    /// judge answers `approvalNeeded` rather than opening the session (none for custom tokens).
    package var hooks: SignInHooks = []
    /// Opened instead of the session when the user has second factors.
    package var challenge: NewMFASession? = nil
}

/// Which of beforeCreate and beforeSignIn are installed, as a sign-in's store transaction needs
/// to know: a sign-in they would judge answers `approvalNeeded` rather than opening its session.
package struct SignInHooks: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static let beforeCreate = SignInHooks(rawValue: 1)
    package static let beforeSignIn = SignInHooks(rawValue: 2)

    /// Whether a sign-in of an existing user (`isNew` false) or of a new one waits for them.
    func judge(isNew: Bool) -> Bool { contains(.beforeSignIn) || (isNew && contains(.beforeCreate)) }
}
