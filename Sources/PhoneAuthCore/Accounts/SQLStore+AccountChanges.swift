/// The account changes a signed-in user proves with a code (AccountStore).
extension SQLStore {
    package func redeemForAccount(
        id: String, uid: String, presentedSession: String, change: AccountChange, now: Timestamp,
        maxAttempts: Int, limits: CheckLimits, codeMatches: ([UInt8]) -> Bool, signIn: NewSignIn
    ) throws -> AccountOutcome {
        try write { db in
            if let refusal = try checkPresented(uid: uid, session: presentedSession, in: db) {
                return .refused(refusal)
            }
            let purpose: VerificationPurpose
            if case .enrollPhone = change { purpose = .enroll } else { purpose = .signIn }
            let phone: String
            switch try checkCode(
                id: id, tenant: signIn.tenant, purpose: purpose, subject: purpose == .enroll ? uid : nil, now: now,
                maxAttempts: maxAttempts, limits: limits, codeMatches: codeMatches,
                retry: signIn.retrySince.map { (change.call, $0) },
                in: db)
            {
            case let .failure(rejection): return .rejected(rejection)
            case let .success(v):
                // The same code again, soon after it made this change: what the change opened,
                // for the same user only, while the change still holds.
                if let earlier = v.earlier {
                    guard earlier.uid == uid else { return .rejected(.unusable(reason: .alreadyUsed)) }
                    return try resumeEarlier(earlier, now: now, in: db) { user in
                        if case .enrollPhone = change {
                            user.factors.contains { $0.phoneNumber == v.phone }
                        } else {
                            user.phoneNumber == v.phone
                        }
                    }
                }
                phone = v.phone
            }
            guard var user = try self.user(uid: uid, in: db) else { return .refused(.userNotFound) }
            let holder = try numberHolder(phone, tenant: user.tenant, in: db)
            let owner = holder.user
            switch change {
            case let .link(proof):
                if user.phoneNumber != nil { return .refused(.providerAlreadyLinked) }
                if let owner {
                    return try alreadyInUse(id, proof: proof, phone: phone, owner: owner, now: now, in: db)
                }
                if holder.isSecondFactor { return .refused(.unsupportedFirstFactor) }
                return try changeNumber(
                    id, of: user, to: phone, presentedSession: presentedSession, link: true, proof: proof,
                    signIn: signIn, now: now, in: db)
            case let .updatePhoneNumber(proof):
                if let owner, owner.uid != uid {
                    return try alreadyInUse(id, proof: proof, phone: phone, owner: owner, now: now, in: db)
                }
                if holder.isSecondFactor { return .refused(.unsupportedFirstFactor) }
                return try changeNumber(
                    id, of: user, to: phone, presentedSession: presentedSession, link: false, proof: proof,
                    signIn: signIn, now: now, in: db)
            case .reauthenticate:
                if owner?.uid != uid { return .refused(.userMismatch) }
                // A user with second factors meets the challenge first; the hooks judge after it.
                if signIn.hooks.judge(isNew: false), user.factors.isEmpty {
                    try markUsed(id, in: db)
                    return .approvalNeeded(
                        PendingSignIn(
                            flow: .existingUser(proved: .phoneNumber(phone)), user: user, isNew: false, signIn: signIn))
                }
            case let .enrollPhone(factor):
                if owner != nil { return .refused(.unsupportedFirstFactor) }
                if user.factors.contains(where: { $0.phoneNumber == phone }) {
                    return .refused(.secondFactorAlreadyEnrolled)
                }
                if user.factors.count >= factor.maxFactors { return .refused(.maximumSecondFactorCountExceeded) }
                user.factors.append(try insertFactor(factor, uid: uid, phone: phone, lastStep: 0, now: now, in: db))
            }
            return try openSpending(id, change.call, signIn, for: user, now: now, in: db)
        }
    }

    /// Opens `signIn`'s session (or challenge) for `user` and spends the code `id`, recording
    /// what it opened for a retry of the same `call`.
    private func openSpending(
        _ id: String, _ call: EarlierUse.Call, _ signIn: NewSignIn, for user: UserRecord, now: Timestamp,
        in db: Connection
    ) throws -> AccountOutcome {
        let outcome = try open(signIn, for: user, isNew: false, now: now, in: db)
        try markUsed(id, EarlierUse(call: call, uid: user.uid, opened: outcome.opened(by: signIn)), at: now, in: db)
        return outcome
    }

    /// Gives `user` the number `phone` (its first, with `link`) and opens the continued session;
    /// with hooks, only spends the code and leaves both to `completeSignIn`, after beforeSignIn.
    private func changeNumber(
        _ id: String, of user: UserRecord, to phone: String, presentedSession: String, link: Bool,
        proof: TemporaryProof, signIn: NewSignIn, now: Timestamp, in db: Connection
    ) throws -> AccountOutcome {
        var user = user
        user.phoneNumber = phone
        if signIn.hooks.judge(isNew: false) {
            try markUsed(id, in: db)
            return .approvalNeeded(
                PendingSignIn(
                    flow: .numberChange(
                        presentedSession: presentedSession, link: link, verificationId: id, proof: proof),
                    user: user, isNew: false, signIn: signIn))
        }
        guard
            case let .updated(changed) = try apply(
                UserChanges(phoneNumber: .some(phone)), uid: user.uid, now: now, in: db)
        else { return .refused(.userNotFound) }
        return try openSpending(id, link ? .link : .updatePhoneNumber, signIn, for: changed, now: now, in: db)
    }

    /// Another user (`owner`) has the number: the code is consumed and becomes `proof`, a
    /// verification that signs in to the owner.
    func alreadyInUse(
        _ id: String, proof: TemporaryProof, phone: String, owner: UserRecord, now: Timestamp,
        in db: Connection
    ) throws -> AccountOutcome {
        try markUsed(id, in: db)
        // The proof signs in to the owner, so it is a verification of the owner's tenant.
        try db.run(
            """
            INSERT INTO verifications (id, phone, code_hash, created_at, expires_at, delivery, language_code, due_at, \
            purpose, subject, tenant)
            VALUES (?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?)
            """,
            [
                .text(proof.verificationId), .text(phone), .blob(proof.codeHash), .int(now.milliseconds),
                .int(proof.expiresAt.milliseconds), .text(DeliveryState.none), .int(now.milliseconds),
                .text(VerificationPurpose.temporaryProof), .text(owner.uid), .text(owner.tenant.text),
            ])
        return .refused(.credentialAlreadyInUse(phone: phone))
    }

    package func unlinkPhone(uid: String, presentedSession: String, now: Timestamp) throws -> AccountOutcome {
        try write { db in
            if let refusal = try checkPresented(uid: uid, session: presentedSession, in: db) {
                return .refused(refusal)
            }
            guard let user = try self.user(uid: uid, in: db) else { return .refused(.userNotFound) }
            guard user.phoneNumber != nil else { return .refused(.noSuchProvider) }
            guard
                case let .updated(unlinked) = try apply(
                    UserChanges(phoneNumber: .some(nil)), uid: uid, now: now, in: db)
            else { return .refused(.userNotFound) }
            return .done(unlinked)
        }
    }
}
