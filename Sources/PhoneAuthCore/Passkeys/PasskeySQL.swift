/// The passkeys' select, and its row as a Passkey.
enum PasskeySQL {
    static let select = """
        SELECT id, tenant, uid, public_key, algorithm, sign_count, aaguid, format, backup_eligible, name, created_at, \
        last_used_at FROM passkeys
        """

    static func passkey(_ row: some SQLRow) -> Passkey {
        Passkey(
            id: row.text(0), tenant: TenantID(unchecked: row.text(1)), uid: row.text(2), publicKey: row.blob(3),
            algorithm: row.int(4), signCount: UInt32(truncatingIfNeeded: row.int(5)), aaguid: row.blob(6),
            format: row.text(7), backupEligible: row.int(8) != 0, name: row.text(9),
            createdAt: Timestamp(milliseconds: row.int(10)),
            lastUsedAt: row.optionalInt(11).map { Timestamp(milliseconds: $0) })
    }
}
