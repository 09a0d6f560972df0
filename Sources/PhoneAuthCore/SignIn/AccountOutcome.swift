/// The outcome of every store transaction that signs a user in or changes an account.
package enum AccountOutcome: Sendable {
    /// A session was opened: what its tokens are made from.
    case signedIn(SessionInfo, isNewUser: Bool)
    /// The same credential again, soon after it signed in: that session, still at its first
    /// generation, whose secret is `sealedSecret`.
    case resumed(SessionInfo, isNewUser: Bool, sealedSecret: [UInt8])
    /// Done without a session; the user as it now is.
    case done(UserRecord)
    case rejected(CodeRejection)
    case refused(AccountRefusal)
    /// The user has second factors: `challenge` was opened (or, for a retried sign-in, is still
    /// open) instead of a session.
    case secondFactorRequired(UserRecord, challenge: NewMFASession)
    /// The credential is checked and spent; the sign-in waits for the hooks (see PendingSignIn).
    case approvalNeeded(PendingSignIn)
    /// Too many wrong codes for this factor: it is locked until then.
    case locked(until: Timestamp)
}

extension AccountOutcome {
    /// What `signIn` opened, for a retry of its call to find (EarlierUse.opened): the
    /// challenge, when the user met one, else the session.
    func opened(by signIn: NewSignIn) -> String {
        if case let .secondFactorRequired(_, challenge) = self { challenge.id } else { signIn.sessionId }
    }
}
