/// The user in every dialect a door speaks, each under Firebase's own names for that dialect: a
/// field added to `UserRecord` is added here, and every door shows it.
///
/// - `json`: the JSON methods (docs/API.md "User") and so PhoneAuthKit's hosts, as the Admin SDK's
///   `UserRecord`: `metadata.creationTime` / `lastSignInTime`, RFC 3339.
/// - `identityToolkitJSON`: phoneauthd's `accounts:lookup`, `getAccountInfo`, `accounts:batchGet`:
///   `createdAt` / `lastLoginAt`, milliseconds as strings.
/// - `exportJSON`: exportUsers, as `firebase auth:export` writes a user: `createdAt` /
///   `lastSignedInAt`, milliseconds as strings.
/// - `hookJSON`: a blocking function's `user_record` (HOOKS): `metadata.creation_time` /
///   `last_sign_in_time`, milliseconds.
/// - `eventJSON`: an event's `data.user` (docs/API.md "Events"): `creationTime` / `lastSignInTime`,
///   RFC 3339.
extension UserRecord {
    /// The user as the JSON methods answer (`getUser`, `signInWithCredential`'s `user`, …), every
    /// field present (null when unset).
    package var json: JSONValue {
        var metadata = JSONObjectBuilder()
        metadata.set("creationTime", .string(createdAt.rfc3339))
        metadata.set("lastSignInTime", lastSignInAt.map { .string($0.rfc3339) } ?? .null)
        return .object([
            ("uid", .string(uid)),
            ("phoneNumber", phoneNumber.map { .string($0) } ?? .null),
            ("displayName", displayName.map { .string($0) } ?? .null),
            ("disabled", .bool(disabled)),
            ("metadata", metadata.value),
            // Tokens are valid from the account's creation until its sessions are first revoked.
            ("tokensValidAfterTime", .string(tokensValidAfter.rfc3339)),
            ("customClaims", claims ?? .null),
            (
                "providerData",
                .array(
                    phoneNumber.map { phone in
                        [
                            .object([
                                ("providerId", .string("phone")), ("uid", .string(phone)),
                                ("phoneNumber", .string(phone)),
                            ])
                        ]
                    } ?? [])
            ),
            ("multiFactor", .object([("enrolledFactors", .array(factors.map { $0.json(maskingPhone: false) }))])),
            ("passkeyInfo", .array(passkeys.map { .object($0.fields) })),
            ("tenantId", tenant.named.map { .string($0) } ?? .null),
        ])
    }

    /// The fields both of Firebase's dialects begin with, the last sign-in under the dialect's
    /// own name (`lastLoginAt` in Identity Toolkit's, `lastSignedInAt` in auth:export's).
    private func firebaseFields(lastSignIn key: String) -> JSONObjectBuilder {
        var o = JSONObjectBuilder()
        o.set("localId", .string(uid))
        o.set("phoneNumber", phoneNumber.map { .string($0) })
        o.set("displayName", displayName.map { .string($0) })
        o.set("disabled", .bool(disabled))
        o.set("createdAt", Self.millisecondsText(createdAt))
        o.set(key, lastSignInAt.map(Self.millisecondsText))
        return o
    }

    /// The user as Identity Toolkit's `accounts:lookup` (and `batchGet`) answers: `validSince` in
    /// seconds, `lastRefreshAt` RFC 3339, every second factor in `mfaInfo`.
    package var identityToolkitJSON: JSONValue {
        var o = firebaseFields(lastSignIn: "lastLoginAt")
        o.set("lastRefreshAt", lastSignInAt.map { .string($0.rfc3339) })
        o.set("validSince", .string(String(tokensValidAfter.milliseconds / 1000)))
        o.set("customAttributes", customClaims.map { .string($0) })
        o.set("providerUserInfo", providerUserInfo)
        if !factors.isEmpty { o.set("mfaInfo", .array(factors.map(\.identityToolkitJSON))) }
        // Identity Platform's PasskeyInfo: the name the passkey was made for, and its own.
        if !passkeys.isEmpty {
            o.set(
                "passkeyInfo",
                .array(
                    passkeys.map {
                        .object([
                            ("credentialId", .string($0.id)), ("name", .string(phoneNumber ?? uid)),
                            ("displayName", .string($0.name)),
                        ])
                    }))
        }
        // The JS SDK takes `user.tenantId` from here and refuses a user of another tenant than its own.
        o.set("tenantId", tenant.named.map { .string($0) })
        return o.value
    }

    /// The user as `firebase auth:export` writes it (what importUsers reads back): no session
    /// fields, only the phone second factors (a TOTP secret never leaves the store), and the
    /// passkeys with their public keys (PhoneAuth's own field).
    package var exportJSON: JSONValue {
        var o = firebaseFields(lastSignIn: "lastSignedInAt")
        o.set("customAttributes", customClaims.map { .string($0) })
        o.set("tenantId", tenant.named.map { .string($0) })
        o.set("providerUserInfo", providerUserInfo)
        let phoneFactors = factors.filter { $0.factorId == .phone }
        if !phoneFactors.isEmpty { o.set("mfaInfo", .array(phoneFactors.map(\.identityToolkitJSON))) }
        if !passkeys.isEmpty { o.set("passkeyInfo", .array(passkeys.map(\.exportJSON))) }
        return o.value
    }

    /// The user as Firebase's blocking functions see it (`user_record`).
    var hookJSON: JSONValue {
        var record = JSONObjectBuilder()
        record.set("uid", .string(uid))
        record.set("phone_number", phoneNumber.map { .string($0) })
        record.set("display_name", displayName.map { .string($0) })
        record.set("disabled", .bool(disabled))
        record.set("tenant_id", tenant.named.map { .string($0) })
        record.set("custom_claims", claims)
        record.set(
            "provider_data",
            .array(
                phoneNumber.map {
                    [.object([("uid", .string($0)), ("provider_id", .string("phone")), ("phone_number", .string($0))])]
                } ?? []))
        let enrolled: [JSONValue] = factors.map { factor in
            var f = JSONObjectBuilder()
            f.set("uid", .string(factor.enrollmentId))
            f.set("factor_id", .string(factor.factorId.rawValue))
            f.set("phone_number", factor.phoneNumber.map { .string($0) })
            f.set("display_name", factor.displayName.map { .string($0) })
            f.set("enrollment_time", .string(factor.enrolledAt.rfc3339))
            return f.value
        }
        if !enrolled.isEmpty { record.set("multi_factor", .object([("enrolled_factors", .array(enrolled))])) }
        var metadata = JSONObjectBuilder()
        metadata.set("creation_time", .int(createdAt.milliseconds))
        metadata.set("last_sign_in_time", lastSignInAt.map { .int($0.milliseconds) })
        record.set("metadata", metadata.value)
        record.set("tokens_valid_after_time", validSince.map { .int($0.seconds) })
        return record.value
    }

    /// The user as an event's `data.user` shows it, every field present (null when unset);
    /// `phone` shows a number as the `events` configuration says (masked or whole).
    func eventJSON(phone: (String?) -> JSONValue?) -> JSONValue {
        .object([
            ("uid", .string(uid)), ("phoneNumber", phone(phoneNumber) ?? .null),
            ("displayName", displayName.map { .string($0) } ?? .null), ("disabled", .bool(disabled)),
            ("customClaims", claims ?? .null),
            ("creationTime", .string(createdAt.rfc3339)),
            ("lastSignInTime", lastSignInAt.map { .string($0.rfc3339) } ?? .null),
            ("tenantId", tenant.named.map { .string($0) } ?? .null),
        ])
    }

    /// From when ID tokens are valid: the account's creation until its sessions are first revoked.
    private var tokensValidAfter: Timestamp { validSince ?? createdAt }

    /// The custom claims as a JSON object (they are stored as its text).
    private var claims: JSONValue? { customClaims.flatMap { try? JSONCodec.parse($0) } }

    /// The phone sign-in as Identity Toolkit's `providerUserInfo` lists it (export and lookup alike).
    private var providerUserInfo: JSONValue {
        .array(
            phoneNumber.map { phone in
                [
                    .object([
                        ("providerId", .string("phone")), ("rawId", .string(phone)), ("phoneNumber", .string(phone)),
                    ])
                ]
            } ?? [])
    }

    /// A time as Identity Toolkit writes `createdAt` and `lastLoginAt`: milliseconds, as a string.
    private static func millisecondsText(_ time: Timestamp) -> JSONValue { .string(String(time.milliseconds)) }
}

extension EnrolledFactor {
    /// The factor as Identity Toolkit's `mfaInfo` lists it, in a user (export and lookup) and in a
    /// challenge's hints (whose number is masked already).
    package var identityToolkitJSON: JSONValue {
        Self.identityToolkitJSON(
            enrollmentId: enrollmentId, kind: factorId, displayName: displayName, phoneNumber: phoneNumber,
            enrolledAt: enrolledAt)
    }

    /// `mfaInfo`'s item from the factor's fields: `phoneInfo` for a phone, `totpInfo` for TOTP.
    package static func identityToolkitJSON(
        enrollmentId: String, kind: FactorKind, displayName: String?, phoneNumber: String?, enrolledAt: Timestamp
    ) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("mfaEnrollmentId", .string(enrollmentId))
        o.set("displayName", displayName.map { .string($0) })
        o.set("enrolledAt", .string(enrolledAt.rfc3339))
        if kind == .phone {
            o.set("phoneInfo", .string(phoneNumber ?? ""))
        } else {
            o.set("totpInfo", .object([]))
        }
        return o.value
    }
}
