/// Push receipts and captcha challenges, and what every app check counts against an address.
extension SQLStore {
    package func addAppCheck(
        id: String, kind: AppCheckKind, secretHash: [UInt8]?, scheme: String?,
        expiresAt: Timestamp, now: Timestamp, ipKey: String?, ipLimit: Int
    ) throws -> LimitTrip? {
        try write { db in
            if let trip = try countAppCheck(ipKey: ipKey, limit: ipLimit, now: now, in: db) { return trip }
            try db.run(
                "INSERT INTO app_checks (id, kind, secret_hash, scheme, expires_at) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(id), .text(kind), secretHash.map { .blob($0) } ?? .null, Self.optional(scheme),
                    .int(expiresAt.milliseconds),
                ])
            return nil
        }
    }

    /// Counts one app check (a push receipt, a captcha or passkey challenge) against the client's
    /// address, unless it has made `limit` in the last hour: then the limit, and nothing counted.
    func countAppCheck(ipKey: String?, limit: Int, now: Timestamp, in db: Connection) throws -> LimitTrip? {
        guard let ipKey else { return nil }
        if let trip = try slidingLimit(.appChecksPerIp, key: ipKey, limit: limit, now: now, in: db) { return trip }
        if limit > 0 { try bump(.appChecksPerIp, key: ipKey, now: now, in: db) }
        return nil
    }

    package func claimAppCheck(id: String, kind: AppCheckKind, expiresAt: Timestamp) throws -> Bool {
        try write { db in
            try db.run(
                "INSERT INTO app_checks (id, kind, expires_at, state) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                [.text(id), .text(kind), .int(expiresAt.milliseconds), .text(AppCheckState.used)]) == 1
        }
    }

    package func useAppCheck(
        id: String, kind: AppCheckKind, now: Timestamp, spendOnMismatch: Bool,
        accepts: ([UInt8]?, String?) -> Bool
    ) throws -> AppCheckRefusal? {
        try write { db in
            guard
                let (secretHash, scheme, expiresAt, state) = try db.row(
                    "SELECT secret_hash, scheme, expires_at, state FROM app_checks WHERE id = ? AND kind = ?",
                    [.text(id), .text(kind)],
                    { ($0.optionalBlob(0), $0.optionalText(1), $0.int(2), try $0.text(3, as: AppCheckState.self)) })
            else { return .unknown }
            if state != .active { return .alreadyUsed }
            if expiresAt <= now.milliseconds { return .expired }
            let accepted = accepts(secretHash, scheme)
            if accepted || spendOnMismatch {
                try db.run("UPDATE app_checks SET state = ? WHERE id = ?", [.text(AppCheckState.used), .text(id)])
            }
            return accepted ? nil : .mismatch
        }
    }
}
