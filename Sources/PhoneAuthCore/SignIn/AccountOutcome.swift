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

/// A sign-in whose credential was checked and spent, waiting for the beforeCreate and
/// beforeSignIn hooks: they run between two transactions, never inside one, and the second one
/// (`completeSignIn`) opens the session if the account is still as the hooks saw it.
package struct PendingSignIn: Sendable {
    package enum Flow: Sendable {
        /// A first-factor code (or a temporary proof, which signs in only the user it was made
        /// for); `verificationId` records what the sign-in opened, for a retry.
        case firstFactor(verificationId: String, temporaryProof: Bool)
        /// A user who reauthenticated with their number, proved a second factor or signed in with
        /// a passkey: it must still be theirs when the session opens.
        case existingUser(proved: Proof)
        /// A number linked to (`link`) or changed for the signed-in `presentedSession`'s user;
        /// if another user has it by then, the spent code `verificationId` becomes `proof`.
        case numberChange(presentedSession: String, link: Bool, verificationId: String, proof: TemporaryProof)
    }

    package enum Proof: Sendable {
        case phoneNumber(String)
        /// The enrolment ID of the second factor.
        case secondFactor(String)
        /// The credential ID of the passkey the user signed in with.
        case passkey(String)

        /// What was proved must still be `user`'s: its number, that second factor, that passkey.
        func refusal(by user: UserRecord) -> AccountRefusal? {
            switch self {
            case let .phoneNumber(number): user.phoneNumber == number ? nil : .userMismatch
            case let .secondFactor(enrollment):
                user.factors.contains(where: { $0.enrollmentId == enrollment }) ? nil : .multiFactorInfoNotFound
            case let .passkey(id): user.passkeys.contains(where: { $0.id == id }) ? nil : .passkeyNotFound
            }
        }
    }

    package var flow: Flow
    /// The user as the hooks see it: for a new user, the record about to be written; for a
    /// number change, with the new number.
    package var user: UserRecord
    package var isNew: Bool
    package var signIn: NewSignIn

    /// The record of a user that a first sign-in with `phone` would create.
    static func newUser(uid: String, phone: String, tenant: TenantID, now: Timestamp) -> UserRecord {
        UserRecord(
            uid: uid, phoneNumber: phone, displayName: nil, disabled: false, createdAt: now, lastSignInAt: now,
            validSince: nil, tenant: tenant)
    }
}
