/// Users brought in from an export (PhoneAuth's or Firebase's), one transaction each.
extension SQLStore {
    /// Writes `user` with its phone second factors: a new uid is added, an existing one has its
    /// fields and phone factors replaced (so importing the same file twice changes nothing; its
    /// TOTP factors and sessions stay). Refused, with nothing written, when the number is another
    /// user's or a second factor, or a factor's number is a user's sign-in number.
    package func importUser(_ user: UserRecord, replacingPasskeys: Bool) throws -> UpdateUserOutcome {
        try write { db in
            let existing = try self.user(uid: user.uid, in: db)
            // A uid is one user in one pool: another tenant's is not replaced.
            if let existing, existing.tenant != user.tenant { return .uidTaken }
            if let phone = user.phoneNumber {
                let holder = try numberHolder(phone, tenant: user.tenant, in: db)
                if let owner = holder.user, owner.uid != user.uid { return .phoneNumberTaken }
                if holder.isSecondFactor { return .phoneIsSecondFactor }
            }
            for factor in user.factors {
                guard let phone = factor.phoneNumber else { continue }
                if phone == user.phoneNumber { return .phoneIsSecondFactor }
                if let owner = try self.user(.phoneNumber(phone), tenant: user.tenant, in: db), owner.uid != user.uid {
                    return .phoneIsSecondFactor
                }
            }
            let fields: [SQLValue] = [
                Self.optional(user.phoneNumber), Self.optional(user.displayName), .int(user.disabled ? 1 : 0),
                .int(user.createdAt.milliseconds), user.lastSignInAt.map { .int($0.milliseconds) } ?? .null,
                Self.optional(user.customClaims),
            ]
            if existing == nil {
                guard try tenantExists(user.tenant, in: db) else { throw TenantService.notFound(user.tenant) }
                try db.run(
                    """
                    INSERT INTO users (phone, display_name, disabled, created_at, last_sign_in_at, custom_claims, uid, \
                    tenant)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, fields + [.text(user.uid), .text(user.tenant.text)])
            } else {
                try db.run(
                    """
                    UPDATE users SET phone = ?, display_name = ?, disabled = ?, created_at = ?, last_sign_in_at = ?, \
                    custom_claims = ?
                    WHERE uid = ?
                    """, fields + [.text(user.uid)])
                try db.run(
                    "DELETE FROM factors WHERE uid = ? AND factor_id = ?", [.text(user.uid), .text(FactorKind.phone)])
            }
            for factor in user.factors where factor.factorId == .phone {
                try db.run(
                    """
                    INSERT INTO factors (uid, enrollment_id, factor_id, display_name, phone, enrolled_at) \
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(user.uid), .text(factor.enrollmentId), .text(FactorKind.phone),
                        Self.optional(factor.displayName),
                        Self.optional(factor.phoneNumber),
                        .int(factor.enrolledAt.milliseconds),
                    ])
            }
            if replacingPasskeys { try replacePasskeys(of: user, in: db) }
            guard let stored = try self.user(uid: user.uid, in: db) else { return .notFound }
            return .updated(stored)
        }
    }
}
