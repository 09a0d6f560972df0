import PhoneAuthCore

/// What the host installs for the engine to call: the SMS sender, the push sender (and
/// verifyClient, which sends a push), the captcha verifier, blocking hooks and the receivers of
/// events.
extension PhoneAuth {
    /// Installs the function that sends each SMS (the `callback` provider, the default), or
    /// removes it with nil. It runs on the engine's delivery threads; return `true` once the
    /// message is handed to the carrier, `false` to have it retried later. Ignored when the
    /// configuration names another provider (`console`, or SMS providers in the JSON).
    public func setSMSSender(_ send: (@Sendable (SMSMessage) -> Bool)?) {
        engine.setSMSSender(send.map(ClosureSender.init))
    }

    /// Installs the function that delivers verification pushes to the app (through APNs or
    /// FCM), or removes it with nil. Installed, it turns app verification on: SMS requests then
    /// need an ``AppVerification``. Return `true` once the push is handed over.
    public func setPushSender(_ send: (@Sendable (VerificationPush) -> Bool)?) {
        engine.appVerification.setPushSender(send.map(ClosurePushSender.init))
    }

    /// Installs the function that checks a captcha token with its provider (reCAPTCHA, hCaptcha,
    /// Turnstile...), or removes it with nil: `(success, score)`, or nil when the check could not
    /// be made. Installed, it turns app verification on.
    public func setCaptchaVerifier(
        _ verify: (@Sendable (_ token: String, _ clientIP: String?) -> (success: Bool, score: Double?)?)?
    ) {
        guard let verify else { return setCaptchaVerifier(checking: nil) }
        setCaptchaVerifier(checking: { (check: CaptchaCheck) -> CaptchaAnswer? in
            guard let (success, score) = verify(check.token, check.clientIP) else { return nil }
            return CaptchaAnswer(success: success, score: score)
        })
    }

    /// Installs the function that checks a captcha token, or removes it with nil, as the one
    /// above; it is also given the number when the send is to be rated for SMS toll fraud
    /// (`pumping.tollFraud`), and may answer the provider's `tollFraudRisk`.
    public func setCaptchaVerifier(checking verify: (@Sendable (CaptchaCheck) -> CaptchaAnswer?)?) {
        engine.appVerification.setCaptchaVerifier(verify.map(ClosureCaptchaVerifier.init))
    }

    /// Sends the app a silent push holding a receipt and its secret (through the push sender);
    /// the app answers with both as ``AppVerification/pushReceipt(receipt:secret:)``. Returns the
    /// receipt and how many seconds to wait for the push before falling back to a captcha.
    public func verifyClient(
        appToken: String, tokenType: String = "unknown",
        clientIP: String? = nil
    ) throws(PhoneAuthError) -> (receipt: String, suggestedTimeoutSeconds: Int) {
        let sent = try run("verifyClient") {
            try $0.appVerification.verifyClient(
                appToken: appToken, tokenType: tokenType, for: try caller(clientIP: clientIP))
        }
        return (sent.receipt, Int(sent.suggestedTimeout))
    }

    /// Installs (or, with nil, removes) a blocking hook, replacing the configuration's HTTP hook of
    /// that name: the closure gets the event as JSON text (docs/API.md, "Hooks") and returns the
    /// response as JSON text: `{}` to go on, `{"recaptchaActionOverride": "BLOCK"}` to stop an SMS,
    /// `{"error": {"status": "PERMISSION_DENIED", "message": "…"}}` to refuse (the caller gets
    /// ``PhoneAuthError/Code/blockingFunctionError`` with that message). nil, or text that is not a
    /// JSON object, is a failure that `hooks.<name>.onError` decides. It runs on the thread doing
    /// the call (a pool thread for the `async` methods), outside any database transaction.
    public func setHook(_ name: BlockingHook, _ hook: (@Sendable (_ eventJSON: String) -> String?)?) {
        engine.hooks.set(name.core, hook.map(ClosureHook.init))
    }

    /// Installs (or, with nil, removes) the receiver of recorded events (docs/API.md, "Events"),
    /// replacing the configuration's `events` webhook; it also gets the events recorded while none
    /// was installed. The closure gets one event's JSON text (`{"id", "type", "timestamp",
    /// "data"}`) on the engine's event thread, a user's events in order, each at least once (drop
    /// repeats by `id`), and returns whether it took it: false, and the event is offered again
    /// later. Throws `invalidArgument` when the configuration has no `events` object.
    public func setRecordedEventHandler(_ handler: (@Sendable (_ eventJSON: String) -> Bool)?) throws(PhoneAuthError) {
        try run("setRecordedEventHandler") { try $0.outbox.setHandler(handler.map(ClosureEventHandler.init)) }
    }

    /// Events recorded and not yet delivered: how many, and how long ago the oldest was recorded
    /// (in whole seconds; nil when none waits).
    public func eventBacklog() throws(PhoneAuthError) -> (count: Int, oldestAgeSeconds: Int?) {
        try run("eventBacklog") { engine in
            let (count, age) = try engine.outbox.backlog()
            return (Int(count), age.map { Int($0) })
        }
    }

    /// Installs the function that receives the engine's events (sign-ins, failures, limits,
    /// lockouts, SMS sent or failed: docs/API.md, "Log sink"), each as an ``Event`` (its `json` is
    /// the object the C ABI's log sink gets), or removes it with nil. Numbers are masked to their
    /// last four digits; codes, secrets and tokens never appear. It runs on the calling thread, a
    /// delivery thread, or in ``close()`` for the last sends, and must be quick. SMS sent or failed
    /// are told once the database has the outcome.
    public func setEventHandler(_ handle: (@Sendable (Event) -> Void)?) {
        engine.setEventSink(handle.map(ClosureEventSink.init))
    }
}
