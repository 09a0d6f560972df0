/// App verification: proof that an SMS request comes from the real app, by a silent push that
/// carries a secret to the device, or by a captcha the host checks.
package final class AppVerificationService {
    private let config: EngineConfig
    private let smsText: SMSText
    private let clock: Clock
    private let store: any AppCheckStore
    private let keys: KeyRing
    let hooks: AppVerificationHooks
    private let failures: FailureReporter

    init(
        config: EngineConfig, smsText: SMSText, clock: Clock, store: any AppCheckStore, keys: KeyRing,
        hooks: AppVerificationHooks, failures: FailureReporter
    ) {
        self.config = config
        self.smsText = smsText
        self.clock = clock
        self.store = store
        self.keys = keys
        self.hooks = hooks
        self.failures = failures
    }

    /// What canHandleNotification found in a notification.
    package struct NotificationResult: Sendable {
        package var handled = false
        package var receipt: String?
        package var secret: String?
    }

    /// What canHandleURL found in a URL: a captcha token, or the error the captcha page reported.
    package struct URLResult: Sendable {
        package var handled = false
        package var captchaToken: String?
        package var error: String?
    }

    static let pushKey = "phoneauth"
    static let tokenTypes: Set<String> = ["prod", "sandbox", "unknown"]

    package func setPushSender(_ sender: PushSender?) { hooks.pushSender = sender }
    package func setCaptchaVerifier(_ verifier: CaptchaVerifier?) { hooks.captchaVerifier = verifier }
    /// The captcha page a server serves itself (phoneauthd's), used while `captcha.pageUrl` is unset.
    package func setServedCaptchaPage(_ url: String?) { hooks.captchaPage = url }

    package var appVerificationEnforced: Bool { config.appVerificationEnforce ?? hooks.anyInstalled }

    /// Sends the app a silent push with a receipt and its secret; returns the receipt and how long
    /// to wait for the push before falling back to the captcha.
    package func verifyClient(
        appToken: String?, tokenType: String?, for caller: Caller
    ) throws -> (receipt: String, suggestedTimeout: Int64) {
        let clientIp = caller.address
        guard let appToken, !appToken.isEmpty else {
            throw PhoneAuthError(.missingAppToken, "The app's push token (appToken) is required.")
        }
        guard appToken.utf8.count <= 4096 else {
            throw PhoneAuthError(
                .invalidArgument, "The field 'appToken' must be at most 4096 bytes.",
                details: [("field", .string("appToken"))])
        }
        let type = tokenType ?? "unknown"
        guard Self.tokenTypes.contains(type) else {
            throw PhoneAuthError(
                .invalidArgument, "The field 'tokenType' must be \"prod\", \"sandbox\" or \"unknown\".",
                details: [("field", .string("tokenType"))])
        }
        guard let sender = hooks.pushSender else {
            throw PhoneAuthError(
                .operationNotAllowed, "No push sender is installed (phoneauth_set_push_sender); use the captcha.",
                details: [("reason", .string("noPushSender"))])
        }
        let now = clock.now()
        let receipt = SortableID.make(at: now, randomBytes: 18)
        let secret = Base64URL.encode(SecureBytes.random(count: 32))
        if let trip = try store.addAppCheck(
            id: receipt, kind: .receipt, secretHash: receiptHash(receipt, secret),
            scheme: nil,
            expiresAt: now.adding(seconds: config.receiptTtlSeconds), now: now,
            ipKey: clientIp?.limitKey, ipLimit: config.abuse.appChecksPerIpPerHour)
        {
            throw failures.limitError(trip, now: now)
        }
        let payload: JSONValue = .object([
            (Self.pushKey, .object([("receipt", .string(receipt)), ("secret", .string(secret))]))
        ])
        guard sender.send(appToken: appToken, tokenType: type, payload: payload) else {
            // The host says the push did not go: its secret must not work if it went anyway.
            _ = try store.useAppCheck(
                id: receipt, kind: .receipt, now: now, spendOnMismatch: true,
                accepts: { _, _ in false })
            throw PhoneAuthError(
                .appNotVerified, "The push sender could not send the verification push; use the captcha.",
                details: [("reason", .string("pushFailed"))])
        }
        return (receipt, config.pushTimeoutSeconds)
    }

    /// Recognises the verification push in a notification's payload: the `phoneauth` key holding
    /// the receipt and secret (as an object or as JSON text), or the forwarding probe
    /// (`{"phoneauth": {"warning": ...}}`). Anything else is not ours.
    package static func canHandleNotification(_ notification: JSONValue) -> NotificationResult {
        var value = notification[pushKey]
        if case let .string(text)? = value, text.utf8.count <= 4096 { value = try? JSONCodec.parse(text) }
        guard let value, case .object = value else { return NotificationResult() }
        if let receipt = value["receipt"]?.stringValue, let secret = value["secret"]?.stringValue,
            !receipt.isEmpty, !secret.isEmpty, receipt.utf8.count <= 128, secret.utf8.count <= 128
        {
            return NotificationResult(handled: true, receipt: receipt, secret: secret)
        }
        return NotificationResult(handled: value["warning"] != nil)
    }

    /// The URL of the host's captcha page for a new challenge, which reports back through
    /// `<callbackScheme>://phoneauth/link?deep_link_id=...` (see canHandleURL).
    package func captchaChallenge(
        callbackScheme: String, for caller: Caller
    ) throws -> (url: String, eventId: String) {
        let (languageCode, clientIp) = (caller.language, caller.address)
        guard let page = config.captchaPageUrl ?? hooks.captchaPage else {
            throw PhoneAuthError(
                .operationNotAllowed,
                "No captcha page is configured (captcha.pageUrl, or phoneauthd's own page: "
                    + "captcha.provider with a siteKey).",
                details: [("reason", .string("noCaptchaPage"))])
        }
        guard Self.isAppScheme(callbackScheme) else {
            throw PhoneAuthError(
                .invalidArgument,
                "The field 'callbackScheme' must be the app's URL scheme (a letter, then letters, digits, '+', '-' "
                    + "or '.'; not a web scheme such as https or javascript).",
                details: [("field", .string("callbackScheme"))])
        }
        let now = clock.now()
        let eventId = SortableID.make(at: now, randomBytes: 18)
        // Schemes are case-insensitive, and systems hand them back lower-cased.
        if let trip = try store.addAppCheck(
            id: eventId, kind: .captcha, secretHash: nil,
            scheme: callbackScheme.lowercased(),
            expiresAt: now.adding(seconds: config.receiptTtlSeconds), now: now,
            ipKey: clientIp?.limitKey, ipLimit: config.abuse.appChecksPerIpPerHour)
        {
            throw failures.limitError(trip, now: now)
        }
        let language = smsText.resolve(languageCode?.text, fallback: config.defaultLanguageCode)
        let query =
            "eventId=\(eventId)&callbackScheme=\(PercentEncoding.encode(callbackScheme))"
            + "&hl=\(PercentEncoding.encode(language))"
        return (page + (page.contains("?") ? "&" : "?") + query, eventId)
    }

    /// Recognises the captcha page's answer: exactly `<scheme>://phoneauth/link?deep_link_id=<URL>`
    /// whose URL's query holds an `eventId` this engine issued for that scheme (usable once) and
    /// either `captchaToken` or `error`. Anything else is answered `handled: false`.
    package func canHandleURL(_ url: String) throws -> URLResult {
        guard url.utf8.count <= 8192, !url.contains("#"), let (scheme, link) = Self.parseCallback(url),
            let deepQuery = link.split(separator: "?", maxSplits: 1).dropFirst().first?.split(separator: "#").first,
            let items = PercentEncoding.queryItems(deepQuery),
            let eventId = Self.single("eventId", in: items)
        else { return URLResult() }
        let token = Self.single("captchaToken", in: items), error = Self.single("error", in: items)
        guard (token == nil) != (error == nil), VerificationCode.isWellFormedId(eventId) else { return URLResult() }
        guard
            try store.useAppCheck(
                id: eventId, kind: .captcha, now: clock.now(), spendOnMismatch: false,
                accepts: { _, stored in stored == scheme.lowercased() }) == nil
        else {
            return URLResult()
        }
        return URLResult(handled: true, captchaToken: token, error: error)
    }

    /// Refuses an SMS request without a valid proof, when app verification is enforced. `rated`
    /// (the number, when pumping.tollFraud wants the send rated): the provider's toll fraud risk
    /// is returned; where no proof is required, a captcha token is still checked for it, and one
    /// that fails leaves the send unrated rather than refused (leaving it out would do as much).
    func checkAppProof(_ proof: AppProof?, clientIp: ClientAddress?, rated: PhoneNumber? = nil) throws -> Double? {
        guard !config.appVerificationDisabledForTesting else { return nil }
        if !appVerificationEnforced {
            guard rated != nil, case .captcha? = proof else { return nil }
            return try? checkProof(proof, clientIp: clientIp, rated: rated)
        }
        return try checkProof(proof, clientIp: clientIp, rated: rated)
    }

    private func checkProof(_ proof: AppProof?, clientIp: ClientAddress?, rated: PhoneNumber?) throws -> Double? {
        switch proof {
        case nil:
            throw PhoneAuthError(
                .missingAppCredential,
                "App verification is required: pass appVerification {receipt, secret} from the verification push, "
                    + "or {captchaToken}."
            )
        case let .receipt(receipt, secret)?:
            let expected = receiptHash(receipt, secret)
            if let why = try store.useAppCheck(
                id: receipt, kind: .receipt, now: clock.now(), spendOnMismatch: true,
                accepts: { stored, _ in SecureBytes.equal(stored ?? [], expected) })
            {
                let reason = why == .mismatch ? "wrongSecret" : why.rawValue
                throw PhoneAuthError(
                    .invalidAppCredential,
                    "The push receipt and secret are not valid (\(reason)); request a new receipt.",
                    details: [("reason", .string(reason))])
            }
        case let .captcha(token)?:
            guard let verifier = hooks.captchaVerifier else { throw CaptchaRefusal.noVerifier.error }
            // A token proves one request: claimed (by its hash) before the verifier is asked.
            let tokenId = Base64URL.encode(keys.codeHash(verificationId: "captcha-token", code: token))
            let expiresAt = clock.now().adding(seconds: config.receiptTtlSeconds)
            guard try store.claimAppCheck(id: tokenId, kind: .captchaToken, expiresAt: expiresAt) else {
                throw CaptchaRefusal.alreadyUsed.error
            }
            guard let verdict = verifier.verify(token: token, clientIp: clientIp?.text, phoneNumber: rated?.e164)
            else { throw CaptchaRefusal.verifierFailed.error }
            guard verdict.success else { throw (verdict.refusal ?? .rejected).error }
            if let score = verdict.score, !(score >= config.captchaMinScore) { throw CaptchaRefusal.lowScore.error }
            return rated == nil ? nil : verdict.tollFraudRisk
        }
        return nil
    }

    private func receiptHash(_ receipt: String, _ secret: String) -> [UInt8] {
        keys.codeHash(verificationId: "receipt:" + receipt, code: secret)
    }

    /// RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), kept short.
    static func isScheme(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, bytes.count <= 128, ASCII.isLetter(first) else { return false }
        return bytes.allSatisfy { ASCII.isLetterOrDigit($0) || $0 == 43 || $0 == 45 || $0 == 46 }
    }

    /// A scheme an app registers: the page sends the captcha token to it, so a scheme the browser
    /// itself handles (a web page, script or file) is refused.
    package static func isAppScheme(_ text: String) -> Bool {
        isScheme(text) && !webSchemes.contains(text.lowercased())
    }

    static let webSchemes: Set<String> = [
        "http", "https", "javascript", "data", "vbscript", "file", "blob", "about", "filesystem", "ws", "wss", "ftp",
        "view-source", "intent", "mailto", "sms", "tel",
    ]

    /// Splits `<scheme>://phoneauth/link?deep_link_id=<encoded URL>`; nil for any other shape.
    private static func parseCallback(_ url: String) -> (scheme: String, link: String)? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = String(url[..<colon])
        let afterScheme = url[colon...]
        guard afterScheme.hasPrefix("://") else { return nil }
        let rest = afterScheme.dropFirst(3)
        let prefix = "phoneauth/link?"
        guard isScheme(scheme), rest.hasPrefix(prefix),
            let items = PercentEncoding.queryItems(rest.dropFirst(prefix.count)),
            items.count == 1, items[0].0 == "deep_link_id"
        else { return nil }
        return (scheme, items[0].1)
    }

    /// The value of a query item that appears exactly once.
    package static func single(_ name: String, in items: [(String, String)]) -> String? {
        let values = items.filter { $0.0 == name }
        return values.count == 1 && !values[0].1.isEmpty ? values[0].1 : nil
    }
}

/// The host's push sender, captcha verifier and served captcha page, replaceable at any time.
final class AppVerificationHooks: @unchecked Sendable {  // the installed hooks are only read and written under `lock`
    private let lock = Lock()
    private var push: PushSender?
    private var captcha: CaptchaVerifier?
    private var everInstalled = false
    private var page: String?

    var pushSender: PushSender? {
        get { lock.withLock { push } }
        set {
            lock.withLock {
                push = newValue; everInstalled = everInstalled || newValue != nil
            }
        }
    }

    var captchaVerifier: CaptchaVerifier? {
        get { lock.withLock { captcha } }
        set {
            lock.withLock {
                captcha = newValue; everInstalled = everInstalled || newValue != nil
            }
        }
    }

    var captchaPage: String? {
        get { lock.withLock { page } }
        set { lock.withLock { page = newValue } }
    }

    /// Installing either turns enforcement on for good (unless the configuration says otherwise):
    /// replacing a hook must not open a window in which no proof is needed.
    var anyInstalled: Bool { lock.withLock { everInstalled } }
}
