/// Checking a code against a stored verification (counting a wrong one), and consuming it.
extension SQLStore {
    /// A verification as a code check needs it, and its number's lockout.
    private struct StoredCode {
        var phone: String
        var codeHash: [UInt8]
        var expiresAt: Timestamp
        var attempts: Int
        var state: VerificationState
        var purpose: VerificationPurpose
        var subject: String?
        /// The number's lockout; a row of number_failures (a run of wrong codes) even when past.
        var lockedUntil: Int64?
        /// When a call used it, and what that call did (nil: unused, or used before that was kept).
        var used: (at: Int64, use: EarlierUse)?
        /// The pumping scopes its send was counted in, until its code is entered.
        var pumpingScopes: String?
    }

    /// Checks a code against an active verification of `purpose` (and `subject`) in `tenant` and
    /// counts a wrong one; the phone number it verified when it matches. Does not consume it.
    /// Another pool's verification is as unknown as one never made (the same error, so a caller
    /// learns nothing of other tenants).
    /// With `retry`, a code that call used since that time is checked too (wrong ones counted as
    /// for an active code, while attempts are left) and, when it matches, what that call did comes
    /// back as `earlier`; a code another call used is only used.
    func checkCode(
        id: String, tenant: TenantID, purpose: VerificationPurpose, subject: String?, anySubject: Bool = false,
        now: Timestamp,
        maxAttempts: Int, limits: CheckLimits, codeMatches: ([UInt8]) -> Bool,
        retry: (call: EarlierUse.Call, since: Timestamp)? = nil,
        in db: Connection
    ) throws -> Result<(phone: String, subject: String?, earlier: EarlierUse?), CodeRejection> {
        guard let stored = try storedCode(id: id, tenant: tenant, in: db) else { return .failure(.unknown) }
        // A code sent for another purpose (or another user's enrolment or challenge) is not this one's.
        guard stored.purpose == purpose, anySubject || stored.subject == subject else {
            return .failure(.unusable(reason: .wrongPurpose))
        }
        var earlier: EarlierUse?
        switch stored.state {
        case .used:
            // used_at is the clock of the engine that used it: engines' clocks must agree to well
            // within the retry interval (as they must for every expiry).
            guard let retry, let used = stored.used, used.at >= retry.since.milliseconds, used.use.call == retry.call,
                stored.attempts < maxAttempts
            else {
                return .failure(.unusable(reason: .alreadyUsed))
            }
            earlier = used.use
        case .dead: return .failure(.unusable(reason: .tooManyAttempts))
        case .replaced: return .failure(.unusable(reason: .replaced))
        case .active:
            if stored.expiresAt <= now { return .failure(.unusable(reason: .expired)) }
        }
        let phone = stored.phone
        let counted = !limits.exempt.contains(phone)
        let hasFailures = stored.lockedUntil != nil
        if counted {
            if let until = stored.lockedUntil, until > now.milliseconds {
                return .failure(.numberLocked(phone: phone, until: Timestamp(milliseconds: until), justLocked: false))
            }
            if let ip = limits.clientIp,
                let trip = try slidingLimit(
                    .wrongCodesPerIp, key: ip, limit: limits.wrongCodesPerIpPer5Minutes, now: now, in: db)
            {
                return .failure(.limited(trip))
            }
        }
        guard codeMatches(stored.codeHash) else {
            return .failure(
                try countWrongCode(
                    stored, id: id, maxAttempts: maxAttempts, limits: limits, counted: counted, now: now, in: db))
        }
        // A right code ends the number's run of wrong ones (most numbers have none to end).
        if hasFailures { try db.run("DELETE FROM number_failures WHERE phone = ?", [.text(phone)]) }
        // The code was entered: its send converted. Using the code clears its scopes (markUsed),
        // so it is credited once; a right code a refusal left unused is credited when entered again.
        if let keys = stored.pumpingScopes, stored.state == .active {
            if dialect.concurrentWriters {
                db.pumpingCredits.append((keys, now))
            } else {
                try countPumpingVerified(keys, now: now, in: db)
            }
        }
        return .success((phone, stored.subject, earlier))
    }

    /// The verification `id` of `tenant`, its number's run of wrong codes read in the same
    /// statement (one round trip less).
    private func storedCode(id: String, tenant: TenantID, in db: Connection) throws -> StoredCode? {
        try db.row(
            """
            SELECT v.phone, v.code_hash, v.expires_at, v.attempts, v.state, v.purpose, v.subject, \
            f.locked_until, v.used_at, v.used_by, v.used_session, v.used_new_user, v.used_call, v.pumping_scopes
            FROM verifications v LEFT JOIN number_failures f ON f.phone = v.phone \
            WHERE v.id = ? AND v.tenant = ?
            """, [.text(id), .text(tenant.text)],
            { row in
                StoredCode(
                    phone: row.text(0), codeHash: row.blob(1), expiresAt: Timestamp(milliseconds: row.int(2)),
                    attempts: Int(row.int(3)), state: try row.text(4, as: VerificationState.self),
                    purpose: try row.text(5, as: VerificationPurpose.self),
                    subject: row.optionalText(6), lockedUntil: row.optionalInt(7),
                    used: row.optionalText(9).map { uid in
                        (
                            at: row.int(8),
                            use: EarlierUse(
                                // Before calls were told apart, only sign-ins kept what they did.
                                call: row.optionalText(12).flatMap(EarlierUse.Call.init(rawValue:)) ?? .signIn,
                                uid: uid, opened: row.optionalText(10) ?? "", isNewUser: row.int(11) != 0)
                        )
                    }, pumpingScopes: row.optionalText(13))
            })
    }

    /// Counts a wrong code against the verification and, when `counted` (not a pool's test
    /// number), against the client's address and the number's run of wrong codes, which may
    /// lock the number. The refusal the caller gets.
    private func countWrongCode(
        _ stored: StoredCode, id: String, maxAttempts: Int, limits: CheckLimits, counted: Bool, now: Timestamp,
        in db: Connection
    ) throws -> CodeRejection {
        let (phone, state) = (stored.phone, stored.state)
        let used = stored.attempts + 1
        // A used code stays used (it only runs out of retries); an active one dies at the limit.
        let next = state == .used ? state : used >= maxAttempts ? .dead : .active
        try db.run(
            """
            UPDATE verifications SET attempts = ?, state = ?, \
            sealed_body = CASE WHEN ? = 1 THEN NULL ELSE sealed_body END WHERE id = ?
            """,
            [.int(Int64(used)), .text(next), .int(next == .dead ? 1 : 0), .text(id)])
        if counted {
            if let ip = limits.clientIp, limits.wrongCodesPerIpPer5Minutes > 0 {
                try bump(.wrongCodesPerIp, key: ip, now: now, in: db)
            }
            if let until = try countFailure(phone, limits: limits, now: now, in: db) {
                try record(
                    .phoneNumberLocked, subject: phone,
                    [("phoneNumber", events?.shown(phone)), ("until", .string(until.rfc3339))], at: now, in: db)
                return .numberLocked(phone: phone, until: until, justLocked: true)
            }
        }
        // A wrong code for a used one says only that it is used, as it always did.
        if state == .used { return .unusable(reason: .alreadyUsed) }
        return .wrongCode(attemptsLeft: max(0, maxAttempts - used))
    }

    /// Consumes a verification checkCode accepted, in the same transaction.
    func markUsed(_ id: String, in db: Connection) throws {
        try db.run(
            "UPDATE verifications SET state = ?, sealed_body = NULL, pumping_scopes = NULL WHERE id = ?",
            [.text(VerificationState.used), .text(id)])
    }

    /// Consumes a verification, recording what the call that used it did, for a retry of it.
    func markUsed(_ id: String, _ use: EarlierUse, at now: Timestamp, in db: Connection) throws {
        try db.run(
            """
            UPDATE verifications SET state = ?, used_at = ?, used_by = ?, used_session = ?, used_new_user = ?,
            used_call = ?, sealed_body = NULL, pumping_scopes = NULL WHERE id = ?
            """,
            [
                .text(VerificationState.used), .int(now.milliseconds), .text(use.uid), .text(use.opened),
                .int(use.isNewUser ? 1 : 0),
                .text(use.call), .text(id),
            ])
    }
}
