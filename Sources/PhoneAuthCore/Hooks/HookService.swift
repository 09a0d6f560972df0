/// A hook's implementation: the host's function in process, or an HTTP endpoint.
package protocol BlockingHook: Sendable {
    /// The hook's answer to `event` (HOOKS.md's JWT payload): a response object, or
    /// `{"error": {"status", "message"}}` to refuse. nil when it failed to answer: it raised,
    /// could not be reached, timed out, or answered what is not a JSON object.
    func call(_ event: JSONValue, name: HookName) -> JSONValue?
}

/// Runs the blocking hooks: for each event, the host's in-process hook if it set one, else the
/// HTTP hook of the configuration. A refusal, a BLOCK, or (with `onError: deny`) a failure to
/// answer stops the operation with `blockingFunctionError`. Callers run hooks outside any store
/// transaction: a hook may take seconds.
package final class HookService: @unchecked Sendable {  // `inProcess` is only read and written under `lock`
    private let lock = Lock()
    private var inProcess: [HookName: any BlockingHook] = [:]
    private var inFlight: [HookName: Int] = [:]
    private let configured: [HookName: any BlockingHook]
    private let settings: [HookName: HookSettings]
    private let clock: Clock
    private let events: EventLog

    /// A hook's message, as it reaches the caller, is cut to this many bytes.
    static let maxMessageBytes = 512
    /// Calls of one hook that may run at once (see run).
    static let maxConcurrentCalls = 8

    init(settings: [HookName: HookSettings], keys: KeyRing, issuer: String, clock: Clock, events: EventLog) {
        self.settings = settings
        self.clock = clock
        self.events = events
        configured = settings.compactMapValues { setting in
            setting.endpoint.map { HTTPHook(endpoint: $0, keys: keys, issuer: issuer, clock: clock) }
        }
    }

    /// Installs (or, with nil, removes) the host's hook for `name`; it replaces a configured HTTP hook.
    package func set(_ name: HookName, _ hook: (any BlockingHook)?) {
        lock.withLock { inProcess[name] = hook }
    }

    private func hook(_ name: HookName) -> (any BlockingHook)? {
        lock.withLock { inProcess[name] } ?? configured[name]
    }

    /// beforeSendSms: before an SMS code is counted or sent, for every purpose. `user` is the
    /// user whose second factor the code is for, when it is one.
    func beforeSendSms(
        phone: String, purpose: VerificationPurpose, user: UserRecord?, pool: Pool, locale: String,
        client: ClientAddress?
    ) throws {
        guard let hook = hook(.beforeSendSms) else { return }
        var event = base(.beforeSendSms, client: client, locale: locale)
        event.set("tenant_id", pool.tenant.named.map { .string($0) })
        event.set("phone_number", .string(phone))
        event.set("sms_type", .string(Self.smsType(purpose)))
        if let user {
            event.set("sub", .string(user.uid))
            event.set("user_record", user.hookJSON)
        }
        let outcome = try run(hook, .beforeSendSms, event.value) { answer in
            switch answer["recaptchaActionOverride"] {
            case nil, .string("ALLOW")?: .answered
            case .string("BLOCK")?: .blocked
            default: .failed("recaptchaActionOverride must be \"ALLOW\" or \"BLOCK\"")
            }
        }
        if case .blocked = outcome {
            throw PhoneAuthError(
                .blockingFunctionError, "The SMS was blocked by the beforeSendSms hook.",
                details: [("hook", .string("beforeSendSms")), ("reason", .string("smsBlocked"))])
        }
    }

    /// Which of beforeCreate and beforeSignIn are installed (NewSignIn.hooks).
    var signInHooks: SignInHooks {
        var installed: SignInHooks = []
        if hook(.beforeCreate) != nil { installed.insert(.beforeCreate) }
        if hook(.beforeSignIn) != nil { installed.insert(.beforeSignIn) }
        return installed
    }

    /// beforeCreate (for a new user), then beforeSignIn, for a sign-in whose credential was
    /// checked: throws a refusal; returns what they change.
    func judge(_ pending: PendingSignIn, client: ClientAddress?) throws -> HookVerdict {
        var verdict = HookVerdict()
        for name in [HookName.beforeCreate, .beforeSignIn] where name == .beforeSignIn || pending.isNew {
            guard let hook = hook(name) else { continue }
            let user = verdict.applied(to: pending.user)
            var event = base(name, client: client, locale: nil, method: pending.signIn.provider)
            event.set("sub", .string(user.uid))
            event.set("tenant_id", user.tenant.named.map { .string($0) })
            event.set("sign_in_second_factor", pending.signIn.secondFactor.map { .string($0.rawValue) })
            event.set("user_record", user.hookJSON)
            var answered = HookVerdict()
            _ = try run(hook, name, event.value) { answer in
                let sessionClaims = verdict.sessionClaims ?? pending.signIn.sessionClaims
                switch Self.verdict(answer, of: name, claimsBefore: (user.customClaims, sessionClaims)) {
                case let .success(read):
                    answered = read
                    return .answered
                case let .failure(why): return .failed(why.message)
                }
            }
            verdict.merge(answered)
        }
        return verdict
    }

    /// Reads a beforeCreate or beforeSignIn response: the fields its `updateMask` names, each
    /// checked as the admin methods check it (claims as setCustomUserClaims takes them, and
    /// custom and session claims together at most DeveloperClaims.maxBytes).
    /// `claimsBefore`: the user's custom claims and the session's claims as they stand (a
    /// continued session keeps its own unless the answer names them).
    static func verdict(
        _ answer: JSONValue, of name: HookName, claimsBefore: (custom: String?, session: String?)
    ) -> Result<HookVerdict, PhoneAuthError> {
        var verdict = HookVerdict()
        guard let record = answer["userRecord"] else { return .success(verdict) }
        guard record.isObject, let mask = record["updateMask"]?.stringValue ?? (record.objectPairs.isEmpty ? "" : nil)
        else { return .failure(PhoneAuthError(.invalidArgument, "userRecord must be an object with an updateMask")) }
        let allowed = name == .beforeSignIn ? signInFields : createFields
        do throws(PhoneAuthError) {
            for field in mask.split(separator: ",").map({ String($0.filter { $0 != " " }) }) {
                guard allowed.contains(field) else {
                    let why =
                        field == "photoURL"
                        ? "updateMask names photoURL, which PhoneAuth does not keep"
                        : "updateMask names \(Echo.isQuotable(field) ? field : "a field"), "
                            + "which \(name.rawValue) cannot change"
                    return .failure(PhoneAuthError(.invalidArgument, why))
                }
                let value = record[field] ?? .null
                let wrongType = PhoneAuthError(.invalidArgument, "userRecord.\(field) has the wrong type")
                let isNull = if case .null = value { true } else { false }
                switch field {
                case "displayName":
                    if isNull {
                        verdict.changes.displayName = .some(nil)
                    } else {
                        guard let text = value.stringValue else { throw wrongType }
                        verdict.changes.displayName = .some(try Label(text, field: "displayName").text)
                    }
                case "disabled":
                    guard case let .bool(disabled) = value else { throw wrongType }
                    verdict.changes.disabled = disabled
                case "customClaims":
                    verdict.changes.customClaims = .some(
                        isNull ? nil : try DeveloperClaims.validated(value, field: field))
                default:  // sessionClaims
                    verdict.sessionClaims = .some(isNull ? nil : try DeveloperClaims.validated(value, field: field))
                }
            }
        } catch {
            return .failure(error)
        }
        let custom = verdict.changes.customClaims ?? claimsBefore.custom
        let session = verdict.sessionClaims ?? claimsBefore.session
        let total = (custom?.utf8.count ?? 0) + (session?.utf8.count ?? 0)
        guard total <= DeveloperClaims.maxBytes else {
            return .failure(
                PhoneAuthError(
                    .invalidArgument,
                    "custom and session claims together are over \(DeveloperClaims.maxBytes) bytes"))
        }
        return .success(verdict)
    }

    static let createFields: Set<String> = ["displayName", "disabled", "customClaims"]
    static let signInFields = createFields.union(["sessionClaims"])

    /// What a hook's call came to.
    enum Outcome {
        case answered, blocked, refused
        case failed(String)

        var name: String {
            switch self {
            case .answered: "answered"
            case .blocked: "blocked"
            case .refused: "refused"
            case .failed: "failed"
            }
        }
    }

    /// Calls the hook and judges its answer (`judge` reads a response object); throws its
    /// refusal, and a failure unless `onError` is `allow` (then as if it answered `{}`). At most
    /// `maxConcurrentCalls` calls of one hook run at once: a slow hook must not take every thread
    /// of the host, so one more fails at once.
    private func run(
        _ hook: any BlockingHook, _ name: HookName, _ event: JSONValue, judge: (JSONValue) -> Outcome
    ) throws -> Outcome {
        let started = ContinuousClock.now
        var outcome = Outcome.failed("\(Self.maxConcurrentCalls) calls of it were already running")
        var refusal: JSONValue?
        if enter(name) {
            defer { lock.withLock { inFlight[name, default: 1] -= 1 } }
            switch hook.call(event, name: name) {
            case let answer? where answer.isObject:
                refusal = answer["error"]
                outcome = refusal == nil ? judge(answer) : .refused
            default: outcome = .failed("it failed or did not answer in time")
            }
        }
        let elapsed = ContinuousClock.now - started
        events.emit(
            .hookCalled, at: clock.now(),
            [
                ("hook", .string(name.rawValue)), ("outcome", .string(outcome.name)),
                ("ms", .int(elapsed.wholeMilliseconds)),
            ])
        switch outcome {
        case .refused:
            let message =
                Self.message(refusal?["message"]?.stringValue) ?? "The \(name.rawValue) hook refused it."
            // A status is a name such as PERMISSION_DENIED; anything else is not repeated.
            let status =
                refusal?["status"]?.stringValue.flatMap { Echo.isQuotable($0) ? $0 : nil }
                ?? "PERMISSION_DENIED"
            throw PhoneAuthError(
                .blockingFunctionError, message,
                details: [
                    ("hook", .string(name.rawValue)), ("reason", .string("refused")), ("status", .string(status)),
                ])
        case let .failed(why):
            try failed(name, why)
            return .answered
        case .answered, .blocked: return outcome
        }
    }

    /// Takes a place among the hook's calls running at once; false when there is none.
    private func enter(_ name: HookName) -> Bool {
        lock.withLock {
            guard inFlight[name, default: 0] < Self.maxConcurrentCalls else { return false }
            inFlight[name, default: 0] += 1
            return true
        }
    }

    /// A hook that failed to answer, or answered what is not a response: refused under
    /// `onError: deny`, ignored under `allow`.
    private func failed(_ name: HookName, _ why: String) throws {
        guard settings[name]?.onError != .allow else { return }
        throw PhoneAuthError(
            .blockingFunctionError, "The \(name.rawValue) hook could not decide: \(why).",
            details: [("hook", .string(name.rawValue)), ("reason", .string("hookFailed"))])
    }

    /// What every event carries (HOOKS.md's payload): its id and type, the end user's address,
    /// User-Agent and language, the time. Firebase's SDKs read `ip_address` and `user_agent` as
    /// required keys (a token without one fails the function before its code runs), so an unknown
    /// one is the empty string. `method` is how the user signs in: `phone`, or `passkey`.
    private func base(
        _ name: HookName, client: ClientAddress?, locale: String?, method: SignInProvider = .phone
    ) -> JSONObjectBuilder {
        let now = clock.now()
        var event = JSONObjectBuilder()
        event.set("event_id", .string(SortableID.make(at: now, randomBytes: 12)))
        event.set("event_type", .string(name.rawValue))
        event.set("sign_in_method", .string(method.rawValue))
        event.set("iat", .int(now.seconds))
        event.set("ip_address", .string(client?.text ?? ""))
        event.set("user_agent", .string(client?.userAgent ?? ""))
        event.set("locale", locale.map { .string($0) })
        return event
    }

    static func smsType(_ purpose: VerificationPurpose) -> String {
        switch purpose {
        case .signIn, .temporaryProof: "SIGN_IN_OR_SIGN_UP"
        case .enroll: "MULTI_FACTOR_ENROLLMENT"
        case .mfaSignIn: "MULTI_FACTOR_SIGN_IN"
        }
    }

    /// A hook's message as people may read it: no control, format (bidi overrides, zero-width)
    /// or line-separator characters, at most maxMessageBytes.
    static func message(_ text: String?) -> String? {
        guard let text else { return nil }
        let hidden: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
        var kept = ""
        for scalar in text.unicodeScalars where !hidden.contains(scalar.properties.generalCategory) {
            guard kept.utf8.count + String(scalar).utf8.count <= maxMessageBytes else { break }
            kept.unicodeScalars.append(scalar)
        }
        return kept.isEmpty ? nil : kept
    }
}

/// What beforeCreate and beforeSignIn decided for a sign-in they let through: the user's fields
/// their `updateMask` named (stored), and the session's claims (in its ID tokens only).
package struct HookVerdict: Sendable {
    package var changes = UserChanges()
    /// nil: not named (a continued session keeps its claims); `.some(nil)`: none.
    package var sessionClaims: String??

    /// `later`'s fields over these (beforeSignIn runs after beforeCreate).
    mutating func merge(_ later: HookVerdict) {
        if let value = later.changes.displayName { changes.displayName = value }
        if let value = later.changes.disabled { changes.disabled = value }
        if let value = later.changes.customClaims { changes.customClaims = value }
        if let value = later.sessionClaims { sessionClaims = value }
    }

    /// `user` as these changes leave it.
    func applied(to user: UserRecord) -> UserRecord {
        var user = user
        if let value = changes.displayName { user.displayName = value }
        if let value = changes.disabled { user.disabled = value }
        if let value = changes.customClaims { user.customClaims = value }
        return user
    }
}
