/// Receipts: a provider's word on a delivery it took, found by its message ID.
extension SQLStore {
    /// Applies each receipt in one transaction: a delivery moves from sent to delivered or
    /// failed once (a receipt repeated or replayed changes nothing). A verification's current
    /// delivery is its row's, whose failure falls back to the next channel when one is left
    /// (decided once, however many engines see receipts); an earlier one, which a resend or a
    /// fallback replaced, is only recorded.
    package func applyReceipts(
        _ receipts: [DeliveryReceipt], provider: String, now: Timestamp, fallback: FallbackPolicy
    ) throws -> [AppliedReceipt] {
        try write(rowLocksSuffice: true) { db in
            try receipts.map { receipt in
                if let current = try applyToCurrent(receipt, provider: provider, now: now, fallback, in: db) {
                    return current
                }
                return try applyToEarlier(receipt, provider: provider, now: now, in: db)
            }
        }
    }

    private func applyToCurrent(
        _ receipt: DeliveryReceipt, provider: String, now: Timestamp, _ fallback: FallbackPolicy, in db: Connection
    ) throws -> AppliedReceipt? {
        guard
            let (message, delivery, next, active) = try db.row(
                """
                SELECT id, phone, language_code, sealed_body, channel, delivery_seq, tenant, purpose, expires_at,
                       delivery, fallback, state, asked_language
                FROM verifications WHERE delivery_message_id = ? AND delivery_provider = ?
                """, [.text(receipt.messageId), .text(provider)],
                { row in
                    (
                        OutboxMessage(
                            verificationId: row.text(0), phone: row.text(1), languageCode: row.text(2),
                            askedLanguage: row.optionalText(12), sealedCode: row.optionalBlob(3) ?? [],
                            channel: try row.text(4, as: Channel.self),
                            seq: Int(row.int(5)), tenant: TenantID(unchecked: row.text(6)), attempts: 0,
                            purpose: try row.text(7, as: VerificationPurpose.self),
                            expiresAt: Timestamp(milliseconds: row.int(8))),
                        try row.text(9, as: DeliveryState.self), try row.optionalText(10, as: Channel.self),
                        try row.text(11, as: VerificationState.self) == .active
                    )
                })
        else { return nil }
        func result(_ effect: AppliedReceipt.Effect) -> AppliedReceipt {
            AppliedReceipt(
                receipt: receipt, effect: effect, verificationId: message.verificationId, phone: message.phone,
                channel: message.channel)
        }
        let open = delivery == .sent || delivery == .awaiting
        guard receipt.status != .sent else { return result(open ? .noChange : .duplicate) }
        guard open else { return result(.duplicate) }
        let failed = receipt.status == .failed
        // A failure says why, and keeps the fallback it may go by; a delivery needs neither.
        let moved = try db.run(
            """
            UPDATE verifications SET delivery = ?, delivery_error_code = ?,
            delivery_error = COALESCE(?, delivery_error), fallback = CASE WHEN ? = 1 THEN fallback END
            WHERE id = ? AND delivery_seq = ? AND delivery IN (?, ?)
            """,
            [
                .text(receipt.status.deliveryState), .optionalText(receipt.errorCode),
                failed ? .text(DeliveryFailureReason.notDelivered) : .null, .int(failed ? 1 : 0),
                .text(message.verificationId), .int(Int64(message.seq)), .text(DeliveryState.sent),
                .text(DeliveryState.awaiting),
            ])
        // Not open any more: replaced meanwhile (a fallback decided as this waited), when it is
        // an earlier delivery now, else final already.
        guard moved == 1 else {
            let earlier = try applyToEarlier(receipt, provider: provider, now: now, in: db)
            if case .unknownMessage = earlier.effect { return result(.duplicate) }
            return earlier
        }
        if receipt.status == .delivered { return result(.delivered(current: true)) }
        if let next, active, message.expiresAt > now,
            let following = try fallBack(message, to: next, now: now, lease: nil, fallback, in: db)
        {
            return result(.fellBack(following))
        }
        try db.run(
            "UPDATE verifications SET fallback = NULL WHERE id = ? AND delivery_seq = ?",
            [.text(message.verificationId), .int(Int64(message.seq))])
        return result(.failed(current: true))
    }

    private func applyToEarlier(
        _ receipt: DeliveryReceipt, provider: String, now: Timestamp, in db: Connection
    ) throws -> AppliedReceipt {
        guard
            let (id, seq, status, channel, phone) = try db.row(
                """
                SELECT d.verification_id, d.seq, d.status, d.channel, v.phone
                FROM deliveries d JOIN verifications v ON v.id = d.verification_id
                WHERE d.message_id = ? AND d.provider = ?
                """, [.text(receipt.messageId), .text(provider)],
                { row in
                    (
                        row.text(0), row.int(1), try row.text(2, as: DeliveryState.self),
                        try row.text(3, as: Channel.self), row.text(4)
                    )
                })
        else { return AppliedReceipt(receipt: receipt, effect: .unknownMessage) }
        var applied = AppliedReceipt(
            receipt: receipt, effect: .duplicate, verificationId: id, phone: phone, channel: channel)
        guard receipt.status != .sent else {
            applied.effect = status == .sent ? .noChange : .duplicate
            return applied
        }
        let moved = try db.run(
            """
            UPDATE deliveries SET status = ?, error_code = ?, updated_at = ?
            WHERE verification_id = ? AND seq = ? AND status = ?
            """,
            [
                .text(receipt.status.deliveryState), .optionalText(receipt.errorCode), .int(now.milliseconds),
                .text(id), .int(seq), .text(DeliveryState.sent),
            ])
        if moved == 1 {
            applied.effect = receipt.status == .delivered ? .delivered(current: false) : .failed(current: false)
        }
        return applied
    }
}
