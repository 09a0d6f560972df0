/// The engine: verifies phone numbers by SMS, signs users in and issues tokens. Thread-safe; all
/// state lives in the store, so several engines (in one process or several) can share it.
///
/// It is the composition root: it opens the store and the keys, builds one service per concern
/// and wires them together; the operations are the services' (docs/ARCHITECTURE.md).
package final class Engine: @unchecked Sendable {  // every member is immutable; `closed` is under `closeLock`
    package let config: EngineConfig
    let clock: Clock
    let store: Store
    let keys: KeyRing
    let worker: DeliveryWorker
    /// The durable events: their receiver and what still waits.
    package let outbox: EventOutbox
    private let retention: RetentionPurge
    let events = EventLog()

    package let verification: VerificationService
    package let signIn: SignInService
    package let sessions: SessionService
    package let accounts: AccountService
    package let transfer: AccountTransfer
    package let multiFactor: MultiFactorService
    package let appVerification: AppVerificationService
    package let hooks: HookService
    package let keyService: KeyService
    package let lockouts: Lockouts
    package let tenants: TenantService
    package let receipts: ReceiptService
    package let pumping: PumpingService
    package let passkeys: PasskeyService

    private let closeLock = Lock()
    private var closed = false

    package init(config: EngineConfig, clock: Clock = SystemClock()) throws {
        self.config = config
        self.clock = clock
        // The texts are checked before anything is opened: a bad template never meets a store.
        let smsText = try SMSText(config)
        let voiceText = try VoiceText(config)
        let database = Database(config)
        // A missing or malformed key is told before the store is touched, and a key file is
        // generated only once the store has opened: a mistyped path leaves nothing behind.
        let givenKey = try MasterKey.given(configured: config.masterKey, database: database)
        let store = try database.open(events: config.events)
        do {
            let keyFile = MasterKey.keyFile(configured: config.masterKey, database: database)
            guard let master = try givenKey ?? keyFile.map(MasterKey.fromKeyFile) else {
                throw PhoneAuthError(.internalError, "No master key and no key file.")
            }
            keys = try KeyService.openRing(store: store, master: master, keyFile: keyFile, config: config, clock: clock)
        } catch {
            store.close()
            throw error
        }
        self.store = store
        tenants = TenantService(config: config, smsText: smsText, voiceText: voiceText, clock: clock, store: store)
        worker = DeliveryWorker(
            store: store, keys: keys, clock: clock, events: events,
            texts: MessageTexts(tenants: tenants, config: config),
            fallback: config.fallbackPolicy, maxAttempts: config.smsMaxAttempts,
            backoffMs: config.smsRetryBackoffMs, concurrency: config.effectiveSMSConcurrency,
            attemptMilliseconds: config.smsProviders.reduce(0) { $0 + Int64($1.endpoint.timeoutMs) })
        worker.setChain(ProviderChain.configured(config, clock: clock, events: events))
        retention = RetentionPurge(store: store, clock: clock)
        receipts = ReceiptService(config: config, clock: clock, store: store, worker: worker, events: events)

        let failures = FailureReporter(events: events)
        let appHooks = AppVerificationHooks()
        if let webhook = config.pushWebhook { appHooks.pushSender = WebhookPushSender(webhook: webhook, clock: clock) }
        if let provider = config.captchaProvider { appHooks.captchaVerifier = ProviderCaptchaVerifier(provider) }
        appVerification = AppVerificationService(
            config: config, smsText: smsText, clock: clock, store: store, keys: keys,
            hooks: appHooks, failures: failures)
        hooks = HookService(
            settings: config.hooks, keys: keys, issuer: config.effectiveIssuer, clock: clock, events: events)
        sessions = SessionService(
            config: config, clock: clock, store: store, keys: keys, events: events, hooks: hooks,
            failures: failures, tenants: tenants)
        verification = VerificationService(
            tenants: tenants, config: config, clock: clock, store: store, keys: keys,
            worker: worker, appVerification: appVerification, hooks: hooks, failures: failures)
        signIn = SignInService(
            config: config, clock: clock, store: store, verification: verification, sessions: sessions,
            customTokens: CustomTokens(
                keys: keys, issuer: config.effectiveIssuer,
                projectId: config.projectId),
            tenants: tenants, failures: failures)
        accounts = AccountService(
            config: config, clock: clock, store: store, keys: keys, sessions: sessions,
            verification: verification, tenants: tenants, failures: failures)
        transfer = AccountTransfer(clock: clock, store: store, accounts: accounts)
        multiFactor = MultiFactorService(
            config: config, clock: clock, store: store, keys: keys, sessions: sessions,
            verification: verification, accounts: accounts, tenants: tenants)
        keyService = KeyService(ring: keys, config: config, clock: clock, events: events)
        lockouts = Lockouts(clock: clock, store: store, events: events)
        pumping = PumpingService(store: store, clock: clock)
        passkeys = PasskeyService(
            config: config, clock: clock, store: store, sessions: sessions, tenants: tenants, keys: keys,
            failures: failures)
        let log = events
        outbox = EventOutbox(store: store, settings: config.events, clock: clock, log: log)
        do { try worker.start() } catch { store.close(); throw error }
        do {
            try retention.start()
            try outbox.start()
        } catch {
            retention.stop()
            worker.stop()
            store.close()
            throw error
        }
    }

    /// Stops delivery and the purge, and closes the store. Safe to call more than once.
    package func close() {
        let first = closeLock.withLock { () -> Bool in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        outbox.stop()
        retention.stop()
        worker.stop()
        store.close()
    }

    deinit { close() }

    /// The sender for the `callback` provider; nil removes it. Ignored for other providers.
    package func setSMSSender(_ sender: SMSSender?) {
        guard config.smsProvider == .callback else { return }
        worker.setChain(sender.map { ProviderChain(single: $0, name: "callback", clock: clock, events: events) })
    }

    /// Where events go (sends, deliveries, sign-ins, limits, lockouts); nil stops them.
    package func setEventSink(_ sink: EventSink?) { events.setSink(sink) }

    /// What the store has done since the engine opened (statements, transactions, retries).
    package func storageStatistics() -> StoreStatistics { store.statistics() }

    /// What getStatus reports: the store's counts and the signing keys.
    package struct Status: Sendable {
        package let store: StoreStatus
        package let signingKeys: [KeyService.SigningKeyState]
    }

    package func status() throws -> Status {
        Status(store: try store.status(now: clock.now()), signingKeys: keyService.signingKeys())
    }
}
