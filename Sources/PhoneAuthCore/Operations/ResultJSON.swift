import Glibc

/// JSON shapes of the engine's results, as docs/API.md lists them.
package enum ResultJSON {
    static func signIn(_ r: SignInResult) -> JSONValue {
        .object([
            ("user", r.user.json),
            ("idToken", .string(r.idToken)),
            ("refreshToken", .string(r.refreshToken)),
            ("expiresIn", .int(r.expiresIn)),
            (
                "additionalUserInfo",
                .object([("isNewUser", .bool(r.isNewUser)), ("providerId", .string(r.providerId))])
            ),
        ])
    }

    static func refreshed(_ r: SignInResult) -> JSONValue {
        .object([
            ("idToken", .string(r.idToken)), ("refreshToken", .string(r.refreshToken)),
            ("expiresIn", .int(r.expiresIn)),
        ])
    }

    static func verificationStarted(_ v: VerificationStarted) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("verificationId", .string(v.verificationId)),
            ("codeLength", .int(Int64(v.codeLength))),
            ("expiresAt", .string(v.expiresAt.rfc3339)),
            ("resendAt", .string(v.resendAt.rfc3339)),
        ]
        if let channel = v.channel { fields.append(("channel", .string(channel.rawValue))) }
        return .object(fields)
    }

    static func credential(_ c: PhoneCredential) -> JSONValue {
        .object([
            (
                "credential",
                .object([
                    ("providerId", .string("phone")),
                    ("verificationId", .string(c.verificationId)),
                    ("verificationCode", .string(c.verificationCode)),
                ])
            )
        ])
    }

    static func verificationStatus(_ s: VerificationStatus) -> JSONValue {
        .object(
            [
                ("verificationId", .string(s.id)),
                ("phoneNumber", .string(PhoneNumber.mask(s.phone))),
                ("state", .string(s.state.rawValue)),
                ("expiresAt", .string(s.expiresAt.rfc3339)),
                ("delivery", .string(s.delivery)),
                ("attempts", .int(Int64(s.attempts))),
            ]
                + [
                    ("provider", s.provider), ("providerMessageId", s.providerMessageId),
                    ("deliveryError", s.deliveryError), ("channel", s.channel?.rawValue),
                ]
                .compactMap { key, value in value.map { (key, .string($0)) } }
                + (s.deliveries.isEmpty ? [] : [("deliveries", .array(s.deliveries.map(delivery)))]))
    }

    static func receipt(_ r: AppliedReceipt) -> JSONValue {
        var result = JSONObjectBuilder()
        result.set("messageId", .string(r.receipt.messageId))
        result.set("status", .string(r.receipt.status.rawValue))
        result.set("applied", .bool(r.applied))
        result.set("reason", r.reason.map { .string($0) })
        result.set("verificationId", r.verificationId.map { .string($0) })
        if case let .fellBack(next) = r.effect { result.set("fallback", .string(next.channel.rawValue)) }
        return result.value
    }

    static func delivery(_ d: VerificationStatus.Delivery) -> JSONValue {
        .object(
            [("channel", .string(d.channel.rawValue)), ("status", .string(d.status))]
                + [
                    ("provider", d.provider), ("messageId", d.messageId), ("error", d.error),
                    ("errorCode", d.errorCode),
                ]
                .compactMap { key, value in value.map { (key, .string($0)) } })
    }

    /// The signing keys that verify now, oldest first, with the active one marked.
    package static func status(_ status: Engine.Status) -> JSONValue {
        let s = status.store
        return .object([
            ("schemaVersion", .int(Int64(s.schemaVersion))), ("users", .int(s.users)),
            ("liveSessions", .int(s.liveSessions)),
            (
                "sms",
                .object([
                    ("queued", .int(s.smsQueued)), ("sentLastHour", .int(s.smsSentLastHour)),
                    ("failedLastHour", .int(s.smsFailedLastHour)),
                ])
            ),
            (
                "events",
                .object([
                    ("pending", .int(s.eventsPending)),
                    ("oldestPendingAt", s.oldestPendingEvent.map { .string($0.rfc3339) } ?? .null),
                ])
            ),
            ("signingKeys", signingKeys(status.signingKeys)),
        ])
    }

    /// An undelivered event as `listPendingEvents` shows it.
    static func waitingEvent(_ e: WaitingEvent) -> JSONValue {
        .object([
            ("id", .string(e.id)), ("type", .string(e.type)), ("subject", .string(e.subject)),
            ("attempts", .int(Int64(e.attempts))), ("lastError", e.lastError.map { .string($0) } ?? .null),
            ("createdAt", .string(e.createdAt.rfc3339)), ("dueAt", .string(e.dueAt.rfc3339)),
        ])
    }

    static func signingKeys(_ keys: [KeyService.SigningKeyState]) -> JSONValue { .array(keys.map(signingKey)) }

    package static func signingKey(_ k: KeyService.SigningKeyState) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("kid", .string(k.kid))
        o.set("algorithm", .string(k.algorithm))
        o.set("createdAt", .string(k.createdAt.rfc3339))
        o.set("ageDays", .int(k.ageDays))
        o.set("active", .bool(k.active))
        o.set("retiresAt", k.retiresAt.map { .string($0.rfc3339) })
        return o.value
    }
}
