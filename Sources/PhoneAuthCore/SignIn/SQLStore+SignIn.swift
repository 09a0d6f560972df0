/// What a sign-in writes: the user on first sign-in, the session (or the challenge of a user
/// with second factors), and the account changes a verified number makes.
extension SQLStore {
    @_specialize(where Connection == SQLiteConnection)
    package func redeemVerification(
        id: String, temporaryProof: Bool, now: Timestamp, maxAttempts: Int, limits: CheckLimits,
        codeMatches: ([UInt8]) -> Bool, signIn: NewSignIn, retrySince: Timestamp?
    ) throws -> AccountOutcome {
        try write { db in
            let verified: (phone: String, subject: String?, earlier: EarlierUse?)
            switch try checkCode(
                id: id, tenant: signIn.tenant, purpose: temporaryProof ? .temporaryProof : .signIn, subject: nil,
                anySubject: temporaryProof,
                now: now, maxAttempts: maxAttempts, limits: limits, codeMatches: codeMatches,
                retry: retrySince.map { (.signIn, $0) },
                in: db)
            {
            case let .failure(rejection): return .rejected(rejection)
            case let .success(v): verified = v
            }
            if let earlier = verified.earlier {
                return try resumeEarlier(earlier, now: now, in: db) { $0.phoneNumber == verified.phone }
            }
            let phone = verified.phone
            let holder = try numberHolder(phone, tenant: signIn.tenant, in: db)
            var user = holder.user
            // A proof signs in the user who had the number when it was made, and no one else.
            if temporaryProof && user?.uid != verified.subject { return .rejected(.unusable(reason: .ownerChanged)) }
            if user?.disabled == true { return .refused(.userDisabled) }
            if user == nil, holder.isSecondFactor { return .refused(.unsupportedFirstFactor) }
            // Hooks judge a sign-in that opens a session; a user with second factors gets the
            // challenge first, and the hooks run once it is met.
            if signIn.hooks.judge(isNew: user == nil), user?.factors.isEmpty ?? true {
                try markUsed(id, in: db)
                return .approvalNeeded(
                    PendingSignIn(
                        flow: .firstFactor(verificationId: id, temporaryProof: temporaryProof),
                        user: user
                            ?? PendingSignIn.newUser(uid: signIn.newUid, phone: phone, tenant: signIn.tenant, now: now),
                        isNew: user == nil, signIn: signIn))
            }
            let isNew = user == nil
            if user == nil {
                // The verification just found active proves its tenant (see insertUser).
                try insertUser(
                    uid: signIn.newUid, phone: phone, tenant: signIn.tenant, signingIn: true, now: now,
                    tenantProven: true, in: db)
                user = PendingSignIn.newUser(uid: signIn.newUid, phone: phone, tenant: signIn.tenant, now: now)
                try record(.userCreated, subject: signIn.newUid, [("user", eventUser(user!))], at: now, in: db)
            }
            guard let user else { return .refused(.userNotFound) }
            let outcome = try open(signIn, for: user, isNew: isNew, now: now, in: db)
            try markUsed(
                id, EarlierUse(call: .signIn, uid: user.uid, opened: outcome.opened(by: signIn), isNewUser: isNew),
                at: now, in: db)
            return outcome
        }
    }

    /// The second transaction of a sign-in the hooks let through: if the account is still as
    /// they saw it, writes the new user or the new number and what the hooks changed, and opens
    /// the session. If a first sign-in's number changed hands meanwhile (a concurrent sign-in
    /// created its user: one user, never two), answers `approvalNeeded` with the user it now
    /// signs in, for the hooks to judge again.
    package func completeSignIn(_ pending: PendingSignIn, verdict: HookVerdict, now: Timestamp) throws -> AccountOutcome
    {
        try write { db in
            var signIn = pending.signIn
            if let claims = verdict.sessionClaims { signIn.sessionClaims = claims }
            let uid = pending.user.uid
            let phone = pending.user.phoneNumber ?? ""
            var changes = verdict.changes
            // A hook that disables an existing user changes only that, whatever else it or the
            // account says, and the sign-in is refused.
            func disabledByHook() throws -> AccountOutcome? {
                guard verdict.changes.disabled == true else { return nil }
                _ = try apply(UserChanges(disabled: true), uid: uid, now: now, in: db)
                return .refused(.userDisabled)
            }
            switch pending.flow {
            case let .firstFactor(verificationId, temporaryProof):
                let holder = try numberHolder(phone, tenant: signIn.tenant, in: db)
                if holder.user?.uid != (pending.isNew ? nil : uid), temporaryProof {
                    return .rejected(.unusable(reason: .ownerChanged))
                }
                guard let user = holder.user else {
                    // A number enrolled as someone's second factor meanwhile is no first factor.
                    if holder.isSecondFactor { return .refused(.unsupportedFirstFactor) }
                    if !pending.isNew {
                        var next = pending
                        (next.user, next.isNew) = (
                            PendingSignIn.newUser(uid: signIn.newUid, phone: phone, tenant: signIn.tenant, now: now),
                            true
                        )
                        return .approvalNeeded(next)
                    }
                    try insertUser(uid: uid, phone: phone, tenant: signIn.tenant, signingIn: true, now: now, in: db)
                    try markUsed(
                        verificationId, EarlierUse(call: .signIn, uid: uid, opened: signIn.sessionId, isNewUser: true),
                        at: now,
                        in: db)
                    break
                }
                if user.disabled { return .refused(.userDisabled) }
                // Second factors (one enrolled meanwhile, too) come first; the hooks judge after them.
                if !user.factors.isEmpty {
                    let outcome = try open(pending.signIn, for: user, isNew: false, now: now, in: db)
                    if case let .secondFactorRequired(_, challenge) = outcome {
                        try markUsed(
                            verificationId,
                            EarlierUse(call: .signIn, uid: user.uid, opened: challenge.id, isNewUser: false),
                            at: now, in: db)
                    }
                    return outcome
                }
                if user.uid != uid {
                    var next = pending
                    (next.user, next.isNew) = (user, false)
                    return .approvalNeeded(next)
                }
                if let refused = try disabledByHook() { return refused }
                try markUsed(
                    verificationId, EarlierUse(call: .signIn, uid: uid, opened: signIn.sessionId, isNewUser: false),
                    at: now,
                    in: db)
            case let .existingUser(proved):
                guard let user = try user(uid: uid, in: db) else { return .refused(.userNotFound) }
                if user.disabled { return .refused(.userDisabled) }
                if let refusal = proved.refusal(by: user) { return .refused(refusal) }
                if let refused = try disabledByHook() { return refused }
            case let .numberChange(presentedSession, link, verificationId, proof):
                if let refusal = try checkPresented(uid: uid, session: presentedSession, in: db) {
                    return .refused(refusal)
                }
                if let refused = try disabledByHook() { return refused }
                if link, try user(uid: uid, in: db)?.phoneNumber != nil { return .refused(.providerAlreadyLinked) }
                let holder = try numberHolder(phone, tenant: signIn.tenant, in: db)
                if let owner = holder.user, owner.uid != uid {
                    return try alreadyInUse(
                        verificationId, proof: proof, phone: phone, owner: owner, now: now, in: db)
                }
                if holder.isSecondFactor { return .refused(.unsupportedFirstFactor) }
                changes.phoneNumber = .some(phone)
            }
            guard case let .updated(user) = try apply(changes, uid: uid, now: now, announced: !pending.isNew, in: db)
            else { return .refused(.userNotFound) }
            if pending.isNew { try record(.userCreated, subject: uid, [("user", eventUser(user))], at: now, in: db) }
            if user.disabled { return .refused(.userDisabled) }
            return try open(signIn, for: user, isNew: pending.isNew, now: now, in: db)
        }
    }

    /// A used proof presented again within the retry interval: what the call that used it opened,
    /// if that is still as it was, handed out again. A session only while it is at its first
    /// generation (a refresh shows its tokens arrived), a challenge only while it is open; nothing
    /// once the user no longer `holds` what the proof proved (the number, the factor) or has been
    /// disabled.
    func resumeEarlier(
        _ earlier: EarlierUse, now: Timestamp, in db: Connection, holds: (UserRecord) -> Bool
    ) throws -> AccountOutcome {
        let used = AccountOutcome.rejected(.unusable(reason: .alreadyUsed))
        guard let user = try self.user(uid: earlier.uid, in: db), holds(user) else { return used }
        if user.disabled { return .refused(.userDisabled) }
        if let sealed = try db.row(
            "SELECT sealed_secret FROM sessions WHERE uid = ? AND id = ? AND revoked_at IS NULL AND generation = 0",
            [.text(user.uid), .text(earlier.opened)], { $0.optionalBlob(0) })
        {
            guard let sealed, let session = try liveSession(uid: user.uid, id: earlier.opened, in: db) else {
                return used
            }
            return .resumed(session, isNewUser: earlier.isNewUser, sealedSecret: sealed)
        }
        guard let challenge = try mfaSession(id: earlier.opened, kind: .signIn, now: now, in: db),
            challenge.uid == user.uid
        else { return used }
        return .secondFactorRequired(
            user, challenge: NewMFASession(id: earlier.opened, kind: .signIn, expiresAt: challenge.expiresAt))
    }

    /// Numbers enrolled as SMS second factors are never first factors (and the reverse), within
    /// a tenant. Who holds `phone` in `tenant`: the user signing in with it, and whether it is
    /// some user's second factor there (then no account may take it as its sign-in number). One
    /// statement, since every sign-in and number change asks both.
    func numberHolder(
        _ phone: String, tenant: TenantID, in db: Connection
    ) throws -> (user: UserRecord?, isSecondFactor: Bool) {
        let (user, isSecondFactor) =
            try db.row(Self.numberHolderQuery, [.text(phone), .text(tenant.text), .text(tenant.text), .text(phone)]) {
                row in
                (row.optionalText(0) == nil ? nil : Self.userRecord(row), row.int(9) != 0)
            } ?? (nil, false)
        return (try withCredentials(user, in: db), isSecondFactor)
    }

    /// numberHolder's statement (phone, tenant, tenant, phone). The factor's owner is looked up
    /// per factor found (a correlated subquery): a join let SQLite's planner walk every user of
    /// the pool first, so a sign-in's cost grew with the pool (TenantStorageTests checks the plan).
    static var numberHolderQuery: String {
        """
        SELECT u.uid, u.phone, u.display_name, u.disabled, u.created_at, u.last_sign_in_at, u.valid_since, \
        u.custom_claims, u.tenant,
               CASE WHEN EXISTS (SELECT 1 FROM factors f WHERE f.phone = ?
                                 AND (SELECT o.tenant FROM users o WHERE o.uid = f.uid) = ?) THEN 1 ELSE 0 END
        FROM (SELECT 1) AS one LEFT JOIN users u ON u.tenant = ? AND u.phone = ?
        """
    }

    /// Signs in `signIn.newUid`: a custom token's user (`proof` nil), created on first sign-in,
    /// or an existing user who proved `proof` (a passkey), for whom the sign-in hooks run first.
    package func signInUser(
        _ signIn: NewSignIn, proved proof: PendingSignIn.Proof?, now: Timestamp
    ) throws
        -> AccountOutcome
    {
        try write { db in
            let existing = try self.user(uid: signIn.newUid, in: db)
            if existing == nil && proof != nil { return .refused(.userNotFound) }
            // A uid is one user in one pool: a custom token of another tenant's uid is refused.
            if let existing, existing.tenant != signIn.tenant { return .refused(.uidInAnotherTenant) }
            if existing?.disabled == true { return .refused(.userDisabled) }
            if let proof, let existing {
                if let refusal = proof.refusal(by: existing) { return .refused(refusal) }
                // Hooks judge a sign-in that opens a session; second factors come first.
                if signIn.hooks.judge(isNew: false), existing.factors.isEmpty {
                    return .approvalNeeded(
                        PendingSignIn(flow: .existingUser(proved: proof), user: existing, isNew: false, signIn: signIn))
                }
            }
            if existing == nil {
                try insertUser(
                    uid: signIn.newUid, phone: nil, tenant: signIn.tenant, signingIn: true, now: now, in: db)
            }
            let user =
                existing
                ?? UserRecord(
                    uid: signIn.newUid, phoneNumber: nil, displayName: nil, disabled: false,
                    createdAt: now, lastSignInAt: now, validSince: nil, tenant: signIn.tenant)
            if existing == nil {
                try record(.userCreated, subject: user.uid, [("user", eventUser(user))], at: now, in: db)
            }
            return try open(signIn, for: user, isNew: existing == nil, now: now, in: db)
        }
    }
}
