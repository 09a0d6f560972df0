/// Second factors and multi-factor sessions (challenges, TOTP enrolments).
extension SQLStore {
    func insertMFASession(
        _ session: NewMFASession, uid: String, provider: SignInProvider, developerClaims: String?,
        now: Timestamp, in db: Connection
    ) throws {
        try db.run(
            """
            INSERT INTO mfa_sessions (id, uid, kind, provider, developer_claims, sealed_secret, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(session.id), .text(uid), .text(session.kind), .text(provider), Self.optional(developerClaims),
                session.sealedSecret.map { .blob($0) } ?? .null, .int(now.milliseconds),
                .int(session.expiresAt.milliseconds),
            ])
    }

    package func openMFASession(
        _ session: NewMFASession, uid: String, presentedSession: String,
        provider: SignInProvider, now: Timestamp
    ) throws -> AccountOutcome {
        try write { db in
            if let refusal = try checkPresented(uid: uid, session: presentedSession, in: db) {
                return .refused(refusal)
            }
            guard let user = try self.user(uid: uid, in: db) else { return .refused(.userNotFound) }
            try insertMFASession(session, uid: uid, provider: provider, developerClaims: nil, now: now, in: db)
            return .done(user)
        }
    }

    /// An active, unexpired multi-factor session of `kind`: its user, first factor and the state
    /// needed to check a code.
    func mfaSession(
        id: String, kind: MFASessionKind, now: Timestamp, in db: Connection
    ) throws
        -> (
            uid: String, provider: SignInProvider, developerClaims: String?, sealedSecret: [UInt8]?, attempts: Int,
            expiresAt: Timestamp
        )?
    {
        try db.row(
            """
            SELECT uid, provider, developer_claims, sealed_secret, attempts, expires_at FROM mfa_sessions
            WHERE id = ? AND kind = ? AND state = ? AND expires_at > ?
            """, [.text(id), .text(kind), .text(MFASessionState.active), .int(now.milliseconds)]
        ) { row in
            (
                row.text(0), try row.text(1, as: SignInProvider.self), row.optionalText(2), row.optionalBlob(3),
                Int(row.int(4)), Timestamp(milliseconds: row.int(5))
            )
        }
    }

    package func mfaSessionUser(
        id: String, kind: MFASessionKind, in pool: Pool, now: Timestamp
    ) throws -> AccountOutcome {
        try read { db in
            guard let session = try mfaSession(id: id, kind: kind, now: now, in: db) else {
                return .refused(try deadSessionRefusal(id, tenant: pool.tenant, in: db))
            }
            // Another pool's challenge is as unknown as one never opened.
            guard let user = try user(.uid(session.uid), tenant: pool.tenant, in: db) else {
                return .refused(.invalidMultiFactorSession)
            }
            return user.disabled ? .refused(.userDisabled) : .done(user)
        }
    }

    /// Why a multi-factor session of `tenant` is not active: its user was disabled (which ends
    /// them), or it is unknown (another tenant's too), expired or used.
    func deadSessionRefusal(_ id: String, tenant: TenantID, in db: Connection) throws -> AccountRefusal {
        let disabled = try db.row(
            "SELECT u.disabled FROM mfa_sessions m JOIN users u ON u.uid = m.uid AND u.tenant = ? WHERE m.id = ?",
            [.text(tenant.text), .text(id)]
        ) { $0.int(0) != 0 }
        return disabled == true ? .userDisabled : .invalidMultiFactorSession
    }

    /// Counts a wrong TOTP code against a multi-factor session; the tries left.
    func countWrongTotp(sessionId: String, attempts: Int, maxAttempts: Int, in db: Connection) throws -> CodeRejection {
        let used = attempts + 1
        try db.run(
            "UPDATE mfa_sessions SET attempts = ?, state = ? WHERE id = ?",
            [.int(Int64(used)), .text(used >= maxAttempts ? MFASessionState.dead : .active), .text(sessionId)])
        return .wrongCode(attemptsLeft: max(0, maxAttempts - used))
    }

    package func resolveSecondFactor(
        sessionId: String, proof: SecondFactorProof, now: Timestamp, maxAttempts: Int,
        limits: CheckLimits, signIn: NewSignIn
    ) throws -> AccountOutcome {
        try write { db in
            guard let session = try mfaSession(id: sessionId, kind: .signIn, now: now, in: db) else {
                if let since = signIn.retrySince,
                    let resumed = try resumeResolved(
                        sessionId, proof: proof, since: since, now: now, maxAttempts: maxAttempts, limits: limits,
                        tenant: signIn.tenant, in: db)
                {
                    return resumed
                }
                return .refused(try deadSessionRefusal(sessionId, tenant: signIn.tenant, in: db))
            }
            guard let user = try self.user(.uid(session.uid), tenant: signIn.tenant, in: db) else {
                return .refused(.invalidMultiFactorSession)
            }
            if user.disabled { return .refused(.userDisabled) }
            let factor: EnrolledFactor
            var acceptedStep: Int64?
            switch proof {
            case let .phone(verificationId, codeMatches):
                switch try checkCode(
                    id: verificationId, tenant: signIn.tenant, purpose: .mfaSignIn, subject: sessionId, now: now,
                    maxAttempts: maxAttempts,
                    limits: limits, codeMatches: codeMatches, in: db)
                {
                case let .failure(rejection): return .rejected(rejection)
                case let .success(verified):
                    let phone = verified.phone
                    guard let f = user.factors.first(where: { $0.factorId == .phone && $0.phoneNumber == phone }) else {
                        return .refused(.multiFactorInfoNotFound)
                    }
                    factor = f
                }
            case let .totp(enrollmentId, check):
                let key: [SQLValue] = [.text(user.uid), .text(enrollmentId)]
                guard let f = user.factors.first(where: { $0.enrollmentId == enrollmentId && $0.factorId == .totp }),
                    let (secret, lastStep, failures, lockedUntil) = try db.row(
                        "SELECT sealed_secret, last_step, failures, locked_until FROM factors "
                            + "WHERE uid = ? AND enrollment_id = ?",
                        key,
                        { ($0.blob(0), $0.int(1), Int($0.int(2)), Timestamp(milliseconds: $0.int(3))) })
                else { return .refused(.multiFactorInfoNotFound) }
                if lockedUntil > now { return .locked(until: lockedUntil) }
                guard let step = check(secret, user.uid, lastStep) else {
                    try countWrongTotp(factor: key, failures: failures, now: now, in: db)
                    return .rejected(
                        try countWrongTotp(
                            sessionId: sessionId, attempts: session.attempts, maxAttempts: maxAttempts, in: db))
                }
                try db.run(
                    "UPDATE factors SET last_step = ?, failures = 0 WHERE uid = ? AND enrollment_id = ?",
                    [.int(step)] + key)
                factor = f
                acceptedStep = step
            }
            return try completeChallenge(
                sessionId, signIn, provider: session.provider, developerClaims: session.developerClaims,
                factor: factor, step: acceptedStep, proof: proof, user: user, now: now, in: db)
        }
    }

    /// The sign-in a met challenge completes, with its first factor and the factor that met it:
    /// sent for the hooks' approval, or opened, with what it opened kept for a retry of the call.
    private func completeChallenge(
        _ sessionId: String, _ signIn: NewSignIn, provider: SignInProvider, developerClaims: String?,
        factor: EnrolledFactor, step acceptedStep: Int64?, proof: SecondFactorProof, user: UserRecord,
        now: Timestamp, in db: Connection
    ) throws -> AccountOutcome {
        var resolved = signIn
        resolved.provider = provider
        resolved.developerClaims = developerClaims
        resolved.secondFactor = factor.factorId
        resolved.secondFactorEnrollment = factor.enrollmentId
        resolved.challenge = nil
        // Custom-token sign-ins are not judged by hooks, their second factor neither.
        if signIn.hooks.judge(isNew: false), provider != .custom {
            try db.run(
                "UPDATE mfa_sessions SET state = ? WHERE id = ?", [.text(MFASessionState.used), .text(sessionId)])
            if case let .phone(verificationId, _) = proof { try markUsed(verificationId, in: db) }
            return .approvalNeeded(
                PendingSignIn(
                    flow: .existingUser(proved: .secondFactor(factor.enrollmentId)), user: user, isNew: false,
                    signIn: resolved))
        }
        // What the proof opened is kept for a retry of this call (resumeResolved): on the
        // challenge, with the step a TOTP code was accepted at, and on an SMS code.
        try recordMet(
            sessionId, opened: resolved.sessionId, enrollmentId: factor.enrollmentId, step: acceptedStep, now: now,
            in: db)
        if case let .phone(verificationId, _) = proof {
            try markUsed(
                verificationId, EarlierUse(call: .secondFactor, uid: user.uid, opened: resolved.sessionId), at: now,
                in: db)
        }
        return try open(resolved, for: user, isNew: false, now: now, in: db)
    }

    /// A challenge met since `since`, met again with the same proof (a retry after an error whose
    /// commit is unknown): the session it opened, handed out again (resumeEarlier), while the
    /// factor is still the user's. The same SMS code (checked as a used code is, wrong ones
    /// counted), or the same TOTP code at the very step that was accepted (checkTotpRetry). Nil:
    /// not such a retry.
    private func resumeResolved(
        _ sessionId: String, proof: SecondFactorProof, since: Timestamp, now: Timestamp, maxAttempts: Int,
        limits: CheckLimits, tenant: TenantID, in db: Connection
    ) throws -> AccountOutcome? {
        guard let met = try metSession(sessionId, kind: .signIn, since: since, in: db),
            try user(.uid(met.uid), tenant: tenant, in: db) != nil
        else { return nil }
        switch proof {
        case let .phone(verificationId, codeMatches):
            switch try checkCode(
                id: verificationId, tenant: tenant, purpose: .mfaSignIn, subject: sessionId, now: now,
                maxAttempts: maxAttempts, limits: limits, codeMatches: codeMatches, retry: (.secondFactor, since),
                in: db)
            {
            case let .failure(rejection):
                // A locked number or address says so, as for an open challenge; anything else is no retry.
                switch rejection {
                case .limited, .numberLocked: return .rejected(rejection)
                default: return nil
                }
            case let .success(verified): guard verified.earlier?.opened == met.opened else { return nil }
            }
        case let .totp(presented, check):
            guard presented == met.enrollmentId else { return nil }
            if let refusal = try checkTotpRetry(met, sessionId, check, maxAttempts: maxAttempts, now: now, in: db) {
                return refusal
            }
        }
        return try resumeMet(met, .secondFactor, now: now, in: db)
    }

    /// The session a met challenge or TOTP enrolment opened, handed out again while its factor is
    /// still the user's (resumeEarlier). Nil when that session moved on (refreshed, ended): then
    /// it is no retry, and the challenge or enrolment is simply used.
    private func resumeMet(
        _ met: MetSession, _ call: EarlierUse.Call, now: Timestamp, in db: Connection
    ) throws -> AccountOutcome? {
        let resumed = try resumeEarlier(met.earlier(call), now: now, in: db) { user in
            user.factors.contains { $0.enrollmentId == met.enrollmentId }
        }
        if case .rejected = resumed { return nil }
        return resumed
    }

    /// A challenge or TOTP enrolment met: used, with what it opened and the factor (and TOTP
    /// step) that met it, for a retry of the call (metSession).
    private func recordMet(
        _ sessionId: String, opened: String, enrollmentId: String, step: Int64?, now: Timestamp, in db: Connection
    ) throws {
        try db.run(
            """
            UPDATE mfa_sessions SET state = ?, sealed_secret = NULL, resolved_at = ?, resolved_session = ?, \
            resolved_step = ?, resolved_enrollment = ? WHERE id = ?
            """,
            [
                .text(MFASessionState.used), .int(now.milliseconds), .text(opened), step.map { .int($0) } ?? .null,
                .text(enrollmentId),
                .text(sessionId),
            ])
    }

    /// A challenge or TOTP enrolment of `kind` met since `since` (recordMet), and its wrong tries since.
    private func metSession(
        _ id: String, kind: MFASessionKind, since: Timestamp, in db: Connection
    ) throws -> MetSession? {
        try db.row(
            """
            SELECT uid, resolved_session, resolved_step, resolved_enrollment, attempts FROM mfa_sessions
            WHERE id = ? AND kind = ? AND state = ? AND resolved_at >= ?
            """, [.text(id), .text(kind), .text(MFASessionState.used), .int(since.milliseconds)]
        ) { row in
            MetSession(
                uid: row.text(0), opened: row.text(1), step: row.optionalInt(2), enrollmentId: row.text(3),
                attempts: Int(row.int(4)))
        }
    }

    /// A TOTP code presented again for a met session: nil when it is the code that met it (the
    /// same step); else the answer. A wrong one counts as on an open session, toward the factor's
    /// lockout and the session's tries, after which no code is taken for a retry.
    private func checkTotpRetry(
        _ met: MetSession, _ sessionId: String, _ check: TotpCheck, maxAttempts: Int, now: Timestamp,
        in db: Connection
    ) throws -> AccountOutcome? {
        let key: [SQLValue] = [.text(met.uid), .text(met.enrollmentId)]
        guard let step = met.step, met.attempts < maxAttempts,
            let (secret, failures, lockedUntil) = try db.row(
                "SELECT sealed_secret, failures, locked_until FROM factors WHERE uid = ? AND enrollment_id = ?", key,
                { ($0.blob(0), Int($0.int(1)), Timestamp(milliseconds: $0.int(2))) })
        else { return .refused(.invalidMultiFactorSession) }
        if lockedUntil > now { return .locked(until: lockedUntil) }
        if check(secret, met.uid, step - 1) == step { return nil }
        try countWrongTotp(factor: key, failures: failures, now: now, in: db)
        try db.run("UPDATE mfa_sessions SET attempts = attempts + 1 WHERE id = ?", [.text(sessionId)])
        return .refused(.invalidMultiFactorSession)
    }

    /// A wrong TOTP code for a factor (`key`: uid, enrollment ID): counted toward its lockout.
    private func countWrongTotp(factor key: [SQLValue], failures: Int, now: Timestamp, in db: Connection) throws {
        let lock = FactorLockout.lockMilliseconds(afterFailures: failures + 1).map { now.milliseconds + $0 } ?? 0
        try db.run(
            "UPDATE factors SET failures = failures + 1, locked_until = ? WHERE uid = ? AND enrollment_id = ?",
            [.int(lock)] + key)
    }

    package func enrollTotp(
        sessionId: String, uid: String, presentedSession: String, check: TotpCheck, factor: NewFactor,
        now: Timestamp, maxAttempts: Int, signIn: NewSignIn
    ) throws -> AccountOutcome {
        try write { db in
            if let refusal = try checkPresented(uid: uid, session: presentedSession, in: db) {
                return .refused(refusal)
            }
            guard let session = try mfaSession(id: sessionId, kind: .totpEnrollment, now: now, in: db),
                session.uid == uid, let secret = session.sealedSecret
            else {
                // The same code again soon after it enrolled the factor: that enrolment's session.
                guard let since = signIn.retrySince,
                    let met = try metSession(sessionId, kind: .totpEnrollment, since: since, in: db), met.uid == uid
                else { return .refused(.invalidMultiFactorSession) }
                if let refusal = try checkTotpRetry(met, sessionId, check, maxAttempts: maxAttempts, now: now, in: db) {
                    return refusal
                }
                return try resumeMet(met, .enrollTotp, now: now, in: db) ?? .refused(.invalidMultiFactorSession)
            }
            guard var user = try self.user(uid: uid, in: db) else { return .refused(.userNotFound) }
            if user.factors.count >= factor.maxFactors { return .refused(.maximumSecondFactorCountExceeded) }
            guard let step = check(secret, uid, 0) else {
                return .rejected(
                    try countWrongTotp(
                        sessionId: sessionId, attempts: session.attempts, maxAttempts: maxAttempts, in: db))
            }
            var enrolled = factor
            enrolled.sealedSecret = secret
            user.factors.append(try insertFactor(enrolled, uid: uid, phone: nil, lastStep: step, now: now, in: db))
            try recordMet(
                sessionId, opened: signIn.sessionId, enrollmentId: factor.enrollmentId, step: step, now: now, in: db)
            return try open(signIn, for: user, isNew: false, now: now, in: db)
        }
    }

    package func unenroll(
        uid: String, presentedSession: String, enrollmentId: String, signIn: NewSignIn, now: Timestamp
    ) throws -> AccountOutcome {
        try write { db in
            if let refusal = try checkPresented(uid: uid, session: presentedSession, in: db) {
                return .refused(refusal)
            }
            guard var user = try self.user(uid: uid, in: db) else { return .refused(.userNotFound) }
            guard let factor = user.factors.first(where: { $0.enrollmentId == enrollmentId }) else {
                return .refused(.multiFactorInfoNotFound)
            }
            try db.run("DELETE FROM factors WHERE uid = ? AND enrollment_id = ?", [.text(uid), .text(enrollmentId)])
            try record(
                .secondFactorRemoved, subject: uid, [("uid", .string(uid)), ("factor", eventFactor(factor))], at: now,
                in: db)
            user.factors.removeAll { $0.enrollmentId == enrollmentId }
            return try open(signIn, for: user, isNew: false, now: now, in: db)
        }
    }

    func insertFactor(
        _ factor: NewFactor, uid: String, phone: String?, lastStep: Int64, now: Timestamp,
        in db: Connection
    ) throws -> EnrolledFactor {
        // Factors list in enrolment order: two enrolled in one millisecond still get distinct times.
        let latest =
            try db.row("SELECT max(enrolled_at) FROM factors WHERE uid = ?", [.text(uid)]) { $0.optionalInt(0) } ?? nil
        let now = Timestamp(milliseconds: max(now.milliseconds, (latest ?? 0) + 1))
        try db.run(
            """
            INSERT INTO factors (uid, enrollment_id, factor_id, display_name, phone, sealed_secret, last_step, \
            enrolled_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(uid), .text(factor.enrollmentId), .text(factor.factorId), Self.optional(factor.displayName),
                Self.optional(phone),
                factor.sealedSecret.map { .blob($0) } ?? .null, .int(lastStep), .int(now.milliseconds),
            ])
        let enrolled = EnrolledFactor(
            enrollmentId: factor.enrollmentId, factorId: factor.factorId, displayName: factor.displayName,
            phoneNumber: phone, enrolledAt: now)
        try record(
            .secondFactorEnrolled, subject: uid, [("uid", .string(uid)), ("factor", eventFactor(enrolled))], at: now,
            in: db)
        return enrolled
    }
}
