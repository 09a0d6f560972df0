import Glibc
import XCTest
@testable import PhoneAuthCore

/// The parts of SMS delivery that need no HTTP server: the alphabet, the breaker, the order of
/// providers, their configuration, and the delivery threads (leases, concurrency, replacing the
/// sender). The providers' HTTP is tested against loopback servers in
/// bindings/python/tests/test_sms_providers.py.
final class ProviderTests: XCTestCase {
    let phone = "+16505553434"

    func testGSM7TellsWhichTextsNeedUnicode() {
        XCTAssertTrue(GSM7.canEncode("123456 is your verification code."))
        XCTAssertTrue(GSM7.canEncode("Ihr Code: 123456 - ß Ä é @£$¥ €[]{}~^|\\\r\n"))
        XCTAssertFalse(GSM7.canEncode("Ваш код: 123456"))
        XCTAssertFalse(GSM7.canEncode("您的验证码是 123456"))
        XCTAssertFalse(GSM7.canEncode("code 123456 😀"))
        XCTAssertFalse(GSM7.canEncode("code – 123456"))  // an en dash is not in the alphabet
    }

    func testBreakerOpensAfterFailuresInARowProbesOnceAndComesBack() {
        let breaker = CircuitBreaker(threshold: 3, openMilliseconds: 30_000)
        let t0 = Timestamp(seconds: 1_800_000_000)
        XCTAssertNil(breaker.record(worked: false, probe: false, now: t0))
        XCTAssertNil(breaker.record(worked: true, probe: false, now: t0))  // a success ends the run
        XCTAssertNil(breaker.record(worked: false, probe: false, now: t0))
        XCTAssertNil(breaker.record(worked: false, probe: false, now: t0))
        XCTAssertEqual(breaker.admit(now: t0), .go(probe: false))
        XCTAssertEqual(breaker.record(worked: false, probe: false, now: t0), .opened(failures: 3))
        XCTAssertEqual(breaker.admit(now: t0.adding(seconds: 29)), .skip(until: t0.adding(seconds: 30)))
        // After the period one message probes; others wait meanwhile.
        let t1 = t0.adding(seconds: 30)
        XCTAssertEqual(breaker.admit(now: t1), .go(probe: true))
        XCTAssertEqual(
            breaker.admit(now: t1), .skip(until: t1.adding(milliseconds: CircuitBreaker.probeWaitMilliseconds)))
        // A failed probe keeps it out for another period at once (no new run of 3 needed).
        XCTAssertEqual(breaker.record(worked: false, probe: true, now: t1), .opened(failures: 4))
        XCTAssertEqual(breaker.admit(now: t1.adding(seconds: 1)), .skip(until: t1.adding(seconds: 30)))
        let t2 = t1.adding(seconds: 30)
        XCTAssertEqual(breaker.admit(now: t2), .go(probe: true))
        XCTAssertEqual(breaker.record(worked: true, probe: true, now: t2), .restored)
        XCTAssertEqual(breaker.admit(now: t2), .go(probe: false))
        // A threshold of 0 (a host's callback) never opens.
        let never = CircuitBreaker(threshold: 0, openMilliseconds: 0)
        for _ in 0..<50 { XCTAssertNil(never.record(worked: false, probe: false, now: t0)) }
        XCTAssertEqual(never.admit(now: t0), .go(probe: false))
    }

    /// A sender that answers what it is told to, counting calls.
    // @unchecked: its state is only touched under its lock (a test double).
    final class ScriptedSender: SMSSender, @unchecked Sendable {
        private let lock = Lock()
        var answer: SMSSendResult
        private(set) var calls = 0
        init(_ answer: SMSSendResult) { self.answer = answer }
        func send(_ message: SMSMessage) -> SMSSendResult {
            lock.withLock {
                calls += 1; return answer
            }
        }
    }

    private func chain(
        _ senders: [(String, ScriptedSender)], threshold: Int = 5, clock: Clock, events: EventLog = EventLog()
    ) -> ProviderChain {
        ProviderChain(
            senders.map {
                ProviderChain.Member(
                    name: $0.0, sender: $0.1, breaker: CircuitBreaker(threshold: threshold, openMilliseconds: 30_000))
            },
            clock: clock, events: events)
    }

    private let message = SMSMessage(
        to: "+16505553434", body: "123456", code: "123456", languageCode: "en", verificationId: "v1", purpose: "signIn")

    func testChainFailsOverOnAFaultOnly() {
        let clock = ManualClock()
        let first = ScriptedSender(.providerFault(DeliveryProblem(.providerFault, httpStatus: 401)))
        let second = ScriptedSender(.sent(messageId: "m2"))
        let providers = chain([("a", first), ("b", second)], clock: clock)
        var report = providers.deliver(message)
        guard case .sent("m2") = report.outcome else { return XCTFail("\(report.outcome)") }
        XCTAssertEqual(report.provider, "b")
        XCTAssertEqual(report.failedOver, ["a"])

        // "Later" and "invalid number" end the attempt at the first provider.
        first.answer = .retryLater(DeliveryProblem(.serverError, httpStatus: 503))
        report = providers.deliver(message)
        guard case let .failed(problem) = report.outcome else { return XCTFail("\(report.outcome)") }
        XCTAssertEqual(problem.reason, .serverError)
        XCTAssertEqual(report.provider, "a")
        first.answer = .invalidNumber(DeliveryProblem(.invalidNumber, providerCode: "21211"))
        report = providers.deliver(message)
        guard case .undeliverable = report.outcome else { return XCTFail("\(report.outcome)") }
        XCTAssertEqual(second.calls, 1)

        // Every provider at fault: a failed attempt, named after the last one.
        second.answer = .providerFault(DeliveryProblem(.providerFault, httpStatus: 403))
        first.answer = .providerFault(DeliveryProblem(.providerFault, httpStatus: 401))
        report = providers.deliver(message)
        guard case let .failed(last) = report.outcome else { return XCTFail("\(report.outcome)") }
        XCTAssertEqual(last.httpStatus, 403)
        XCTAssertEqual(report.provider, "b")
        XCTAssertEqual(report.failedOver, ["a"])
    }

    func testSkippedProvidersAreNotAskedAndEventsSaySo() {
        let clock = ManualClock()
        let events = EventCollector()
        let log = EventLog()
        log.setSink(events)
        let first = ScriptedSender(.retryLater(DeliveryProblem(.timeout)))
        let second = ScriptedSender(.retryLater(DeliveryProblem(.connectionFailed)))
        let providers = chain([("a", first), ("b", second)], threshold: 2, clock: clock, events: log)
        _ = providers.deliver(message)
        _ = providers.deliver(message)  // a is skipped from now on
        XCTAssertEqual(first.calls, 2)
        _ = providers.deliver(message)
        _ = providers.deliver(message)  // b too
        XCTAssertEqual(second.calls, 2)
        let report = providers.deliver(message)
        guard case let .noProvider(until) = report.outcome else { return XCTFail("\(report.outcome)") }
        XCTAssertEqual(until, clock.now().adding(seconds: 30))
        XCTAssertEqual([first.calls, second.calls], [2, 2])
        let skipped = events.events.filter { $0["event"]?.stringValue == "providerSkipped" }
        XCTAssertEqual(skipped.map { $0["provider"]?.stringValue }, ["a", "b"])
        XCTAssertEqual(skipped.first?["reason"]?.stringValue, "timeout")
        XCTAssertEqual(skipped.first?["seconds"]?.intValue, 30)

        clock.advance(seconds: 30)
        first.answer = .sent(messageId: nil)
        guard case .sent = providers.deliver(message).outcome else { return XCTFail() }
        XCTAssertEqual(events.events.last?["event"]?.stringValue, "providerRestored")
        XCTAssertEqual(events.events.last?["provider"]?.stringValue, "a")
    }

    func testAnswersMeanWhatTheProvidersDocumentationSays() throws {
        let endpoint = HTTPEndpoint(name: "p", baseUrl: "http://127.0.0.1:9")
        let vonage = VonageProvider(endpoint: endpoint, apiKey: "k", apiSecret: "s", from: "Acme")
        func vonageAnswer(_ statuses: [String]) -> [UInt8] {
            let parts = statuses.enumerated().map { #"{"status": "\#($1)", "message-id": "0C00000\#($0)"}"# }
            return Array(
                #"{"message-count": "\#(statuses.count)", "messages": [\#(parts.joined(separator: ","))]}"#.utf8)
        }
        XCTAssertEqual(vonage.interpret(status: 200, body: vonageAnswer(["0", "0"])), .sent(messageId: "0C000000"))
        XCTAssertEqual(
            vonage.interpret(status: 200, body: vonageAnswer(["0", "1"])),
            .retryLater(DeliveryProblem(.rateLimited, providerCode: "1", httpStatus: 200)))
        XCTAssertEqual(
            vonage.interpret(status: 200, body: vonageAnswer(["33"])),
            .invalidNumber(DeliveryProblem(.invalidNumber, providerCode: "33", httpStatus: 200)))
        XCTAssertEqual(
            vonage.interpret(status: 200, body: vonageAnswer(["4"])),
            .providerFault(DeliveryProblem(.providerFault, providerCode: "4", httpStatus: 200)))
        guard case .providerFault = vonage.interpret(status: 200, body: Array("<html>".utf8)) else { return XCTFail() }

        let twilio = TwilioProvider(
            endpoint: endpoint, accountSid: "AC1", credentials: "AC1:t", from: "+15005550006", messagingServiceSid: nil)
        XCTAssertEqual(
            twilio.interpret(status: 201, body: Array(#"{"sid": "SM0123abc"}"#.utf8)), .sent(messageId: "SM0123abc"))
        // An ID that is not a plain token is not repeated in events.
        XCTAssertEqual(
            twilio.interpret(status: 201, body: Array(#"{"sid": "+16505553434 <b>"}"#.utf8)), .sent(messageId: nil))
        XCTAssertEqual(
            twilio.interpret(
                status: 400,
                body: Array(#"{"code": 21610, "message": "Attempt to send to unsubscribed recipient"}"#.utf8)),
            .invalidNumber(DeliveryProblem(.invalidNumber, providerCode: "21610", httpStatus: 400)))
        XCTAssertEqual(
            twilio.interpret(status: 401, body: Array(#"{"code": 20003}"#.utf8)),
            .providerFault(DeliveryProblem(.providerFault, providerCode: "20003", httpStatus: 401)))
        let request = twilio.request(for: message, now: Timestamp(seconds: 1))
        XCTAssertEqual(request.url, "http://127.0.0.1:9/2010-04-01/Accounts/AC1/Messages.json")
        XCTAssertEqual(
            String(decoding: request.body, as: UTF8.self), "To=%2B16505553434&From=%2B15005550006&Body=123456")
    }

    // MARK: Configuration

    private func configError(_ sms: String, file: StaticString = #filePath, line: UInt = #line) -> PhoneAuthError? {
        let text = #"{"database": "/tmp/x.db", "sms": \#(sms)}"#
        do {
            _ = try EngineConfig.read(try JSONCodec.parse(text))
            XCTFail("accepted: \(sms)", file: file, line: line)
            return nil
        } catch let error as PhoneAuthError {
            XCTAssertEqual(error.code, .invalidConfiguration, file: file, line: line)
            return error
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    private func key(_ error: PhoneAuthError?) -> String? {
        error?.details.first(where: { $0.0 == "key" })?.1.stringValue
    }

    func testProviderConfigurationErrorsNameTheKeyAndNeverTheSecret() throws {
        let twilio = #""type": "twilio", "accountSid": "AC1", "from": "+15005550006""#
        let cases: [(String, String)] = [
            (#"{"provider": "callback", "providers": [{\#(twilio), "authToken": "s3cret-token"}]}"#, "sms.providers"),
            (#"{"providers": []}"#, "sms.providers"),
            (#"{"providers": [{"type": "carrier-pigeon"}]}"#, "sms.providers[0].type"),
            (#"{"providers": [{\#(twilio)}]}"#, "sms.providers[0].authToken"),
            (
                #"{"providers": [{\#(twilio), "authToken": "s3cret-token", "authTokenEnv": "X"}]}"#,
                "sms.providers[0].authToken"
            ),
            (
                #"{"providers": [{\#(twilio), "authTokenEnv": "PHONEAUTH_TEST_UNSET_VARIABLE"}]}"#,
                "sms.providers[0].authTokenEnv"
            ),
            (#"{"providers": [{\#(twilio), "authTokenEnv": "s3cret-token value"}]}"#, "sms.providers[0].authTokenEnv"),
            (
                #"{"providers": [{\#(twilio), "authToken": "s3cret-token", "messagingServiceSid": "MG1"}]}"#,
                "sms.providers[0].from"
            ),
            (
                #"{"providers": [{\#(twilio), "authToken": "s3cret-token", "baseUrl": "http://api.example.com"}]}"#,
                "sms.providers[0].baseUrl"
            ),
            (
                #"{"providers": [{\#(twilio), "authToken": "s3cret-token", "#
                    + #""baseUrl": "https://user:s3cret-token@api.example.com"}]}"#,
                "sms.providers[0].baseUrl"
            ),
            (
                #"{"providers": [{\#(twilio), "authToken": "s3cret-token", "caFile": "/nonexistent/ca.pem"}]}"#,
                "sms.providers[0].caFile"
            ),
            (
                #"{"providers": [{\#(twilio), "authToken": "s3cret-token"}, "#
                    + #"{\#(twilio), "authToken": "s3cret-token"}]}"#,
                "sms.providers[1].name"
            ),
            (#"{"providers": [{"type": "vonage", "apiKey": "k", "from": "Acme"}]}"#, "sms.providers[0].apiSecret"),
            (
                #"{"providers": [{"type": "webhook", "url": "https://h.example.com/sms", "secret": "s3cret-token"}]}"#,
                "sms.providers[0].secret"
            ),
            (
                #"{"providers": [{"type": "webhook", "url": "https://h.example.com/sms", "#
                    + #""secret": "whsec_czNjcmV0"}]}"#,
                "sms.providers[0].secret"
            ),
            (
                #"{"providers": [{"type": "webhook", "secret": "whsec_czNjcmV0LXRva2VuLWxvbmctZW5vdWdo"}]}"#,
                "sms.providers[0].url"
            ),
            (
                #"{"providers": [{\#(twilio), "authToken": "s3cret-token", "#
                    + #""baseUrl": "https://api.example.com/v1?x=1"}]}"#,
                "sms.providers[0].baseUrl"
            ),
            (
                #"{"providers": [{\#(twilio), "authToken": "s3cret-token", "baseUrl": "http://[::1]x/"}]}"#,
                "sms.providers[0].baseUrl"
            ),
            (
                #"{"providers": [{\#(twilio), "authToken": "s3cret-token", "apiKeySecret": "s3cret-token"}]}"#,
                "sms.providers[0].apiKeySid"
            ),
            (
                #"{"providers": [{"type": "twilio", "accountSid": "AC:1", "from": "+15005550006", "#
                    + #""authToken": "s3cret-token"}]}"#,
                "sms.providers[0].accountSid"
            ),
            (#"{"concurrency": 0}"#, "sms.concurrency"),
            (#"{"breaker": {"failures": 0}}"#, "sms.breaker.failures"),
        ]
        for (sms, expected) in cases {
            let error = configError(sms)
            XCTAssertEqual(key(error), expected, sms)
            let text = "\(error?.message ?? "") \(error?.details ?? [])"
            XCTAssertFalse(text.contains("s3cret"), text)
            XCTAssertFalse(text.contains("czNjcmV0"), text)
        }
    }

    func testProviderConfigurationIsReadWithSecretsFromTheEnvironment() throws {
        setenv("PHONEAUTH_TEST_TWILIO_TOKEN", "from-the-environment", 1)
        defer { unsetenv("PHONEAUTH_TEST_TWILIO_TOKEN") }
        let config = try EngineConfig.read(
            try JSONCodec.parse(
                #"""
                {"database": "/tmp/x.db", "sms": {"providers": [
                  {"type": "twilio", "name": "primary", "accountSid": "AC1", \#
                "authTokenEnv": "PHONEAUTH_TEST_TWILIO_TOKEN",
                   "messagingServiceSid": "MG1", "baseUrl": "http://127.0.0.1:9/", "timeoutMs": 2000},
                  {"type": "vonage", "apiKey": "k", "apiSecret": "s", "from": "Acme"},
                  {"type": "webhook", "url": "https://hooks.example.com/sms?tenant=1", \#
                "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}],
                 "breaker": {"failures": 3, "seconds": 60}}}
                """#))
        XCTAssertEqual(config.smsProvider, .providers)
        XCTAssertEqual(config.effectiveSMSConcurrency, 16)
        XCTAssertEqual(config.smsBreakerFailures, 3)
        XCTAssertEqual(config.smsBreakerSeconds, 60)
        XCTAssertEqual(config.smsProviders.map(\.endpoint.name), ["primary", "vonage", "webhook"])
        let twilio = try XCTUnwrap(config.smsProviders[0] as? TwilioProvider)
        XCTAssertEqual(twilio.credentials, "AC1:from-the-environment")
        XCTAssertEqual(twilio.endpoint.baseUrl, "http://127.0.0.1:9")
        XCTAssertEqual([twilio.endpoint.timeoutMs, twilio.endpoint.connectTimeoutMs], [2000, 2000])
        XCTAssertEqual(config.smsProviders[2].endpoint.baseUrl, "https://hooks.example.com/sms?tenant=1")
        XCTAssertEqual(
            try EngineConfig.read(try JSONCodec.parse(#"{"database": "/tmp/x.db"}"#)).effectiveSMSConcurrency, 1)
    }

    // MARK: Delivery threads

    /// A sender whose calls wait until the test lets them go.
    // @unchecked: its state is only touched under its lock (a test double).
    final class GatedSender: SMSSender, @unchecked Sendable {
        private let lock = Lock()
        private var open = false
        private(set) var calls: [String] = []
        private(set) var inFlight = 0
        private(set) var mostAtOnce = 0
        func send(_ message: SMSMessage) -> SMSSendResult {
            lock.withLock {
                calls.append(message.verificationId)
                inFlight += 1
                mostAtOnce = max(mostAtOnce, inFlight)
                lock.broadcast()
                while !open { lock.wait(milliseconds: 50) }
                inFlight -= 1
                return .sent(messageId: nil)
            }
        }
        func release() {
            lock.withLock {
                open = true; lock.broadcast()
            }
        }
        func waitForCalls(_ n: Int) -> Bool { lock.withLock { waitUntil(on: lock) { calls.count >= n } } }
    }

    func testQueuedMessagesKeepTheirLeaseWhileTheyWait() throws {
        let dir = temporaryDirectory()
        let clock = ManualClock()
        let first = try Engine(config: makeConfig(dir) { $0.resendAfterSeconds = 0 }, clock: clock)
        let gate = GatedSender()
        first.setSMSSender(gate)
        _ = try first.verification.verifyPhoneNumber(phone)
        XCTAssertTrue(gate.waitForCalls(1))
        // Queued behind the first: more than the engine would take from the store at once, so
        // only renewing their leases keeps them (taking them again would renew them too).
        let waiting = try (0..<6).map { try first.verification.verifyPhoneNumber("+1650555344\($0)").verificationId }
        // Well past the 30-second lease the messages were written with; the engine renews them
        // once a third of it has passed (on its own thread: the test waits to see it in the store).
        for _ in 0..<5 {
            clock.advance(seconds: 12)
            let renewed = clock.now().adding(seconds: 30)
            XCTAssertTrue(try eventually { try leasesRunningUntil(renewed, in: dir) == 7 }, "leases not renewed")
        }
        // Nothing is due for another engine: claiming as its worker would takes nothing.
        let lease = DeliveryLease(owner: "another", until: clock.now().adding(seconds: 30))
        XCTAssertEqual(
            try first.store.claimDueMessages(now: clock.now(), limit: 10, lease: lease, fallback: .none).messages.count,
            0)
        let second = try Engine(config: makeConfig(dir), clock: clock)
        let other = CapturingSender()
        second.setSMSSender(other)
        gate.release()
        XCTAssertTrue(gate.waitForCalls(7))
        first.close()
        second.close()
        XCTAssertEqual(gate.calls.filter { waiting.contains($0) }.count, 6)
        XCTAssertEqual(other.calls, 0)
    }

    func testSendersRunConcurrentlyAndReplacingOneWaitsForItsCalls() throws {
        let engine = try Engine(
            config: makeConfig(temporaryDirectory()) {
                $0.smsConcurrency = 4; $0.resendAfterSeconds = 0
            })
        let gate = GatedSender()
        engine.setSMSSender(gate)
        for i in 0..<6 { _ = try engine.verification.verifyPhoneNumber("+1650555343\(i)") }
        // The four sender threads are all in the gate: none is left for the other two messages.
        XCTAssertTrue(gate.waitForCalls(4))
        XCTAssertEqual(gate.mostAtOnce, 4)

        let returned = DispatchSemaphore(value: 0)
        let replacement = CapturingSender()
        Thread {
            engine.setSMSSender(replacement)
            returned.signal()
        }.start()
        // Once the engine waits for the old sender's calls, which the gate holds, it cannot return.
        XCTAssertTrue(eventually { engine.worker.isWaitingForCalls })
        XCTAssertEqual(
            returned.wait(timeout: .now()), .timedOut,
            "setSMSSender returned while the old sender had calls in flight")
        gate.release()
        XCTAssertEqual(returned.wait(timeout: .now() + .milliseconds(Int(patienceMs))), .success)
        // The two messages still queued go to the new sender; the old one is never called again.
        XCTAssertTrue(replacement.waitForMessages(2))
        XCTAssertEqual(gate.calls.count, 4)
        XCTAssertEqual(replacement.all.count, 2)
        engine.close()
    }

    func testALateOutcomeNeverUndoesAnotherEnginesDelivery() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        let sender = CapturingSender()
        let events = EventCollector()
        engine.setEventSink(events)
        engine.setSMSSender(sender)
        let id = try engine.verification.verifyPhoneNumber(phone).verificationId
        XCTAssertNotNil(events.waitFor("codeSent", phone: phone))  // told once it is recorded
        // An engine whose lease had run out reports a failure after the message was sent.
        let message = OutboxMessage(
            verificationId: id, phone: phone, languageCode: "en", sealedCode: [], channel: .sms, seq: 1,
            tenant: .defaultPool, attempts: 0, purpose: .signIn, expiresAt: Timestamp(seconds: 1))
        _ = try engine.store.recordDeliveries(
            [
                (
                    .failed(verificationId: id, provider: "late", reason: .timeout, retryAt: Timestamp(seconds: 1)),
                    message
                ),
                (.undeliverable(verificationId: id, provider: "late", reason: .invalidNumber), message),
            ],
            now: SystemClock().now(), maxAttempts: 5, leaseOwner: "an-engine-whose-lease-ran-out", fallback: .none)
        let status = try engine.verification.verificationStatus(id)
        XCTAssertEqual(status.delivery, "sent")
        XCTAssertEqual(status.attempts, 1)
        XCTAssertEqual(status.provider, "callback")
        XCTAssertNil(status.deliveryError)
    }

    func testAMessageWhoseCodeExpiredInTheQueueIsNotSent() throws {
        let clock = ManualClock()
        let engine = try Engine(
            config: makeConfig(temporaryDirectory()) {
                $0.resendAfterSeconds = 0; $0.codeTtlSeconds = 60
            }, clock: clock)
        let gate = GatedSender()
        engine.setSMSSender(gate)
        _ = try engine.verification.verifyPhoneNumber(phone)
        XCTAssertTrue(gate.waitForCalls(1))
        let late = try engine.verification.verifyPhoneNumber("+16505553499").verificationId
        clock.advance(seconds: 61)
        gate.release()
        // Given up by the sender thread (from its queue) or the bookkeeping thread (from the store,
        // the lease having run out on the moved clock), whichever comes first: the same reason.
        XCTAssertTrue(try eventually { try engine.verification.verificationStatus(late).delivery == "failed" })
        let status = try engine.verification.verificationStatus(late)
        XCTAssertEqual(status.delivery, "failed")
        XCTAssertEqual(status.deliveryError, "expired")
        XCTAssertEqual(gate.calls.count, 1)
        engine.close()
    }

    func testMessagesGivenUpFromTheStoreSayWhy() throws {
        let clock = ManualClock()
        let engine = try Engine(
            config: makeConfig(temporaryDirectory()) {
                $0.resendAfterSeconds = 0; $0.codeTtlSeconds = 60
            },
            clock: clock)
        defer { engine.close() }
        // No sender: the messages stay in the store, where a worker claims them.
        let replaced = try engine.verification.verifyPhoneNumber(phone).verificationId
        let current = try engine.verification.verifyPhoneNumber(phone).verificationId
        let other = try engine.verification.verifyPhoneNumber("+16505553499").verificationId
        // Past the engine's own leases, before the codes expire: only the replaced one is given up
        // (what is claimed depends on the engine's worker, which may hold a row at that moment).
        let before = clock.now().adding(seconds: 45)
        let claimed = try engine.store.claimDueMessages(
            now: before, limit: 10, lease: DeliveryLease(owner: "test", until: before), fallback: .none
        ).messages
        XCTAssertFalse(claimed.contains { $0.verificationId == replaced })
        XCTAssertEqual(try engine.verification.verificationStatus(replaced).delivery, "failed")
        XCTAssertEqual(try engine.verification.verificationStatus(replaced).deliveryError, "verificationEnded")
        // Past every lease and the codes' expiry: nothing to send, the rest given up as expired.
        XCTAssertEqual(
            try engine.store.claimDueMessages(
                now: clock.now().adding(seconds: 61), limit: 10,
                lease: DeliveryLease(owner: "test", until: before), fallback: .none
            ).messages.count, 0)
        for id in [current, other] {
            XCTAssertEqual(try engine.verification.verificationStatus(id).delivery, "failed")
            XCTAssertEqual(try engine.verification.verificationStatus(id).deliveryError, "expired")
        }
    }

    func testMessagesOfAnEngineWithoutASenderGoToOneThatHasOne() throws {
        let dir = temporaryDirectory()
        // The clock stands still, so the lease the first engine wrote never runs out: the message
        // can only go because that engine, having no sender, handed it back to the store.
        let clock = ManualClock()
        let without = try Engine(config: makeConfig(dir), clock: clock)
        let id = try without.verification.verifyPhoneNumber(phone).verificationId
        XCTAssertTrue(try eventually { try storedDelivery(dir, id) == "pending" })
        let with = try Engine(config: makeConfig(dir), clock: clock)
        let sender = CapturingSender()
        with.setSMSSender(sender)
        XCTAssertEqual(sender.waitForMessage(to: phone)?.verificationId, id)
        without.close()
        with.close()
    }
}

/// How many messages of the database of `dir` are leased until exactly `until`.
private func leasesRunningUntil(_ until: Timestamp, in dir: String) throws -> Int64? {
    let connection = try readingConnection(dir)
    defer { connection.close() }
    return try connection.row(
        "SELECT count(*) FROM verifications WHERE delivery = 'sending' AND due_at = ?",
        [.int(until.milliseconds)], { $0.int(0) })
}
