/// Users out and in, in the JSON of Firebase's `auth:export` / `auth:import` (and firebase-admin's
/// import_users): so users move between Firebase and PhoneAuth, and between PhoneAuth stores.
package final class AccountTransfer {
    private let clock: Clock
    private let store: any AccountStore
    private let accounts: AccountService

    init(clock: Clock, store: any AccountStore, accounts: AccountService) {
        self.clock = clock
        self.store = store
        self.accounts = accounts
    }

    package static let maxImportUsers = 1000
    /// passkeys.maxPerUser's own bound: an import keeps what a user has, up to it.
    static let maxImportedPasskeys = 100

    /// One page of the users of the caller's pool in uid order, each as `auth:export` writes it;
    /// `nextPageToken` continues.
    package func exportUsers(
        for caller: Caller, maxResults: Int, pageToken: String?
    ) throws -> (users: [JSONValue], nextPageToken: String?) {
        let page = try accounts.listUsers(for: caller, maxResults: maxResults, pageToken: pageToken)
        return (page.users.map(\.exportJSON), page.nextPageToken)
    }

    /// Imports up to 1000 users into the caller's pool; each one that cannot be is reported by its index
    /// and the others are imported. Importing a uid again replaces its fields and phone factors
    /// (idempotent); a uid of another tenant is refused, as is a user whose `tenantId` is another.
    package func importUsers(
        _ users: [JSONValue], for caller: Caller
    ) throws -> (imported: Int, errors: [(index: Int, message: String)]) {
        let pool = try accounts.tenants.pool(for: caller)
        guard users.count <= Self.maxImportUsers else {
            throw PhoneAuthError(
                .invalidArgument,
                "At most \(Self.maxImportUsers) users per importUsers call; this one has \(users.count).",
                details: [("field", .string("users"))])
        }
        let now = clock.now()
        var imported = 0, errors: [(Int, String)] = []
        for (index, entry) in users.enumerated() {
            do {
                let user = try Self.importedUser(entry, tenant: pool.tenant, now: now)
                // A user exported without passkeyInfo (Firebase's export) keeps the passkeys it has.
                switch try store.importUser(user, replacingPasskeys: Self.listsPasskeys(entry)) {
                case .updated: imported += 1
                case .phoneNumberTaken: errors.append((index, "Another user has this phone number."))
                case .phoneIsSecondFactor:
                    errors.append((index, "A phone number is both a sign-in number and a second factor."))
                case .uidTaken: errors.append((index, "A user of another tenant has this uid."))
                case .notFound: errors.append((index, "The user could not be written."))
                }
            } catch let error as PhoneAuthError where error.code != .storageError {
                errors.append((index, error.message))
            }
        }
        return (imported, errors)
    }

    /// Whether an exported user lists its passkeys (PhoneAuth's export); Firebase's never does.
    private static func listsPasskeys(_ entry: JSONValue) -> Bool { entry["passkeyInfo"].map { $0 != .null } ?? false }

    /// Fields that hold a way to sign in PhoneAuth does not have: a user with any is refused
    /// rather than imported without it.
    private static let otherSignInFields = ["email", "passwordHash", "salt", "passwordUpdatedAt"]
    /// Fields of Firebase's format that change nothing here.
    private static let ignoredFields: Set<String> = [
        "photoUrl", "emailVerified", "validSince", "lastRefreshAt", "lastLoginAt",
    ]

    /// A user of the export format for `tenant`, checked field by field; a message names what is wrong.
    static func importedUser(_ entry: JSONValue, tenant: TenantID, now: Timestamp) throws -> UserRecord {
        let r = try ObjectReader(entry, what: "user")
        if let field = otherSignInFields.first(where: {
            r.value($0) != nil && r.value($0) != .null && r.value($0) != .string("")
        }) {
            throw PhoneAuthError(
                .invalidArgument, "The user has '\(field)': PhoneAuth signs in by phone only, so it is not imported.")
        }
        try r.rejectUnknown(
            Set(
                [
                    "localId", "phoneNumber", "displayName", "disabled", "createdAt", "lastSignedInAt",
                    "customAttributes",
                    "providerUserInfo", "mfaInfo", "tenantId", "passkeyInfo",
                ] + otherSignInFields
            ).union(ignoredFields))
        guard let uid = try r.string("localId"), !uid.isEmpty, uid.utf8.count <= 128 else {
            throw PhoneAuthError(.invalidArgument, "The field 'localId' must be 1 to 128 bytes.")
        }
        var user = UserRecord(
            uid: uid, phoneNumber: try r.string("phoneNumber").map { try PhoneNumber.parse($0).e164 },
            displayName: try r.string("displayName"), disabled: try r.bool("disabled") ?? false,
            createdAt: try time(r, "createdAt") ?? now,
            lastSignInAt: try time(r, "lastSignedInAt") ?? time(r, "lastLoginAt"),
            validSince: nil, tenant: tenant)
        // As Identity Platform's batchCreate: a user exported from one tenant names it.
        if let named = try r.string("tenantId"), !named.isEmpty, named != tenant.text {
            throw PhoneAuthError(
                .tenantIdMismatch,
                "The user has a mismatching tenant ID: its tenantId is not the tenant it is imported into.",
                details: [("field", .string("tenantId"))])
        }
        _ = try Label(user.displayName, field: "displayName")
        if let text = try r.string("customAttributes"), !text.isEmpty {
            guard text.utf8.count <= 1000, let claims = try? JSONCodec.parse(text) else {
                throw PhoneAuthError(
                    .invalidArgument, "The field 'customAttributes' must be a JSON object's text of at most 1000 bytes."
                )
            }
            user.customClaims = try DeveloperClaims.validated(claims, field: "customAttributes")
        }
        if case let .array(providers)? = r.value("providerUserInfo") {
            for provider in providers where provider["providerId"]?.stringValue != "phone" {
                throw PhoneAuthError(
                    .invalidArgument,
                    "The user signs in with "
                        + "\(Echo.quoted(provider["providerId"]?.stringValue ?? "", or: "another provider")): "
                        + "PhoneAuth signs in by phone only."
                )
            }
        }
        if let factors = r.value("mfaInfo") {
            guard case let .array(items) = factors else {
                throw PhoneAuthError(.invalidArgument, "The field 'mfaInfo' must be an array.")
            }
            user.factors = try items.enumerated().map { i, item in try factor(item, path: "mfaInfo[\(i)]", now: now) }
        }
        if Self.listsPasskeys(entry), let passkeys = r.value("passkeyInfo") {
            guard case let .array(items) = passkeys, items.count <= maxImportedPasskeys else {
                throw PhoneAuthError(
                    .invalidArgument, "The field 'passkeyInfo' must be an array of at most \(maxImportedPasskeys).")
            }
            user.passkeys = try items.enumerated().map { i, item in
                try Passkey.imported(item, path: "passkeyInfo[\(i)]", uid: uid, tenant: tenant, now: now)
            }
            if Set(user.passkeys.map(\.id)).count < user.passkeys.count {
                throw PhoneAuthError(
                    .invalidArgument, "The field 'passkeyInfo' lists a passkey twice.",
                    details: [("field", .string("passkeyInfo"))])
            }
        }
        return user
    }

    private static func factor(_ item: JSONValue, path: String, now: Timestamp) throws -> EnrolledFactor {
        let f = try ObjectReader(item, path: path)
        if f.value("totpInfo") != nil {
            throw PhoneAuthError(
                .invalidArgument, "\(path) is a TOTP factor: its secret is never exported, so it cannot be imported.")
        }
        try f.rejectUnknown(["mfaEnrollmentId", "displayName", "phoneInfo", "enrolledAt", "unobfuscatedPhoneInfo"])
        guard let id = try f.string("mfaEnrollmentId"), !id.isEmpty, id.utf8.count <= 128,
            let phone = try f.string("unobfuscatedPhoneInfo") ?? f.string("phoneInfo")
        else {
            throw PhoneAuthError(.invalidArgument, "\(path) needs 'mfaEnrollmentId' and 'phoneInfo'.")
        }
        return EnrolledFactor(
            enrollmentId: id, factorId: .phone, displayName: try f.string("displayName"),
            phoneNumber: try PhoneNumber.parse(phone).e164, enrolledAt: try time(f, "enrolledAt") ?? now)
    }

    /// A time as Firebase writes it: milliseconds as a string or a number, or RFC 3339.
    static func time(_ r: ObjectReader, _ key: String) throws -> Timestamp? {
        switch r.value(key) {
        case nil, .null?: return nil
        case let .int(ms)?: return Timestamp(milliseconds: ms)
        case let .string(text)?:
            if let ms = Int64(text) { return Timestamp(milliseconds: ms) }
            if let t = Timestamp(rfc3339: text) { return t }
            fallthrough
        default:
            throw PhoneAuthError(
                .invalidArgument, "The field '\(key)' must be milliseconds since 1970 or an RFC 3339 time.")
        }
    }
}
