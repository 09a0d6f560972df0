import XCTest

@testable import PhoneAuthCore

/// Channels in the engine and its store, with a clock the test moves: the channel a code goes
/// by, a resend by another channel, and each way a fallback happens (refused at once, failed by
/// receipt, no receipt in time), decided once.
final class ChannelDeliveryTests: XCTestCase {
    private let phone = "+16505553434"

    /// A host's sender that numbers the messages it takes and refuses the channels it is told to.
    private final class ChannelSender: SMSSender, @unchecked Sendable {
        private let lock = Lock()
        private var messages: [SMSMessage] = []
        var refusing: Set<Channel> = []

        func send(_ message: SMSMessage) -> SMSSendResult {
            lock.withLock {
                defer { lock.broadcast() }
                messages.append(message)
                if refusing.contains(message.channel) {
                    return .invalidNumber(DeliveryProblem(.invalidNumber, providerCode: "131026"))
                }
                return .sent(messageId: "m\(messages.count)")
            }
        }

        /// The first `count` messages, once they have come.
        func wait(for count: Int) -> [SMSMessage] {
            lock.withLock {
                _ = waitUntil(on: lock) { messages.count >= count }
                return messages
            }
        }

        var count: Int { lock.withLock { messages.count } }
    }

    private var dir = ""

    private func engine(
        clock: Clock = SystemClock(), _ adjust: (inout EngineConfig) -> Void = { _ in }
    ) throws -> (Engine, ChannelSender) {
        dir = temporaryDirectory()
        let engine = try Engine(
            config: makeConfig(dir) {
                $0.channels.fallback = [.whatsapp: .sms]
                adjust(&$0)
            }, clock: clock)
        let sender = ChannelSender()
        engine.setSMSSender(sender)
        return (engine, sender)
    }

    private func status(_ engine: Engine, _ id: String) throws -> VerificationStatus {
        try engine.verification.verificationStatus(id)
    }

    func testThePreferredChannelOfTheRegionCarriesTheCodeUnlessTheCallerNamesOne() throws {
        let (engine, sender) = try engine {
            $0.channels.preferred = ["IN": .whatsapp]
            $0.channels.fallback = [:]
        }
        defer { engine.close() }
        let india = try engine.verification.verifyPhoneNumber("+919876543210")
        let us = try engine.verification.verifyPhoneNumber(phone)
        let asked = try engine.verification.verifyPhoneNumber(
            "+919876543211", channel: .voice)
        XCTAssertEqual([india.channel, us.channel, asked.channel], [.whatsapp, .sms, .voice])
        let sent = sender.wait(for: 3)
        XCTAssertEqual(
            Set(sent.map { "\($0.to) \($0.channel)" }),
            ["+919876543210 whatsapp", "\(phone) sms", "+919876543211 voice"])
        // Each in its channel's words, the code given apart for WhatsApp's template.
        let call = try XCTUnwrap(sent.first { $0.channel == .voice })
        XCTAssertTrue(call.body.contains(VoiceText.spoken(call.code)), call.body)
        let whatsapp = try XCTUnwrap(sent.first { $0.channel == .whatsapp })
        XCTAssertEqual(code(in: whatsapp.body), whatsapp.code)
    }

    func testACallAndATemplateTakeTheLanguageAskedForAmongTheirOwn() throws {
        // No SMS text for fr-CA (French serves it), but a call's text for it.
        let (engine, sender) = try engine { $0.voiceTemplates = ["fr-CA": "Votre code : {code}."] }
        defer { engine.close() }
        _ = try engine.verification.verifyPhoneNumber(
            phone, languageCode: LanguageTag("fr-CA"), channel: .voice)
        _ = try engine.verification.verifyPhoneNumber(
            "+16505553435", languageCode: LanguageTag("pt_br"), channel: .whatsapp)
        _ = try engine.verification.verifyPhoneNumber("+16505553436", languageCode: LanguageTag("fr-CA"))
        let sent = Dictionary(uniqueKeysWithValues: sender.wait(for: 3).map { ($0.to, $0) })
        let call = try XCTUnwrap(sent[phone])
        XCTAssertEqual(call.languageCode, "fr-CA")
        XCTAssertTrue(call.body.hasPrefix("Votre code : \(VoiceText.spoken(call.code))."), call.body)
        XCTAssertEqual(sent["+16505553435"]?.languageCode, "pt-BR")
        XCTAssertEqual(sent["+16505553436"]?.languageCode, "fr")
    }

    func testAMessageRefusedAtOnceFallsBackWithTheSameCode() throws {
        let (engine, sender) = try engine()
        defer { engine.close() }
        sender.refusing = [.whatsapp]
        let id = try engine.verification.verifyPhoneNumber(phone, channel: .whatsapp)
            .verificationId
        let sent = sender.wait(for: 2)
        XCTAssertEqual(sent.map(\.channel), [.whatsapp, .sms])
        XCTAssertEqual(sent[1].code, sent[0].code)
        XCTAssertTrue(try eventually { try status(engine, id).delivery == "sent" })
        let deliveries = try status(engine, id).deliveries
        XCTAssertEqual(deliveries.map(\.channel), [.whatsapp, .sms])
        XCTAssertEqual(deliveries.map(\.status), ["failed", "sent"])
        XCTAssertEqual(deliveries[0].error, "invalidNumber")
        // Once: the SMS refused as well has nothing to fall back to.
        XCTAssertEqual(sender.count, 2)
    }

    func testNoReceiptInTimeFallsBackAndADeliveredOneStopsIt() throws {
        let clock = ManualClock()
        let (engine, sender) = try engine(clock: clock) { $0.channels.fallbackAfterSeconds = 20 }
        defer { engine.close() }
        let events = EventCollector()
        engine.setEventSink(events)
        let unconfirmed = try engine.verification.verifyPhoneNumber(
            phone, channel: .whatsapp
        ).verificationId
        let confirmed = try engine.verification.verifyPhoneNumber(
            "+16505553435", channel: .whatsapp
        ).verificationId
        let first = sender.wait(for: 2)
        XCTAssertTrue(
            try eventually { try [unconfirmed, confirmed].allSatisfy { try status(engine, $0).delivery == "sent" } })
        let confirmedId = try XCTUnwrap(status(engine, confirmed).providerMessageId)
        let applied = try engine.store.applyReceipts(
            [DeliveryReceipt(messageId: confirmedId, status: .delivered)], provider: "callback", now: clock.now(),
            fallback: engine.config.fallbackPolicy)
        guard case .delivered(current: true) = applied[0].effect else { return XCTFail("\(applied[0].effect)") }
        // A second before its time, nothing is due (a claim now would take the fallback).
        clock.advance(seconds: 19)
        XCTAssertEqual(
            try engine.store.claimDueMessages(
                now: clock.now(), limit: 10,
                lease: DeliveryLease(owner: "test", until: clock.now().adding(seconds: 30)),
                fallback: engine.config.fallbackPolicy
            ).messages.count, 0)
        XCTAssertEqual(sender.count, 2)
        clock.advance(seconds: 2)
        let sent = sender.wait(for: 3)
        XCTAssertEqual(sent[2].to, phone)
        XCTAssertEqual(sent[2].channel, .sms)
        XCTAssertEqual(sent[2].code, first.first { $0.to == phone }?.code)
        // The fallback is told, as a receipt's is: the WhatsApp message no receipt confirmed.
        let told = try XCTUnwrap(events.waitFor("deliveryFailed", phone: phone))
        XCTAssertEqual(told["channel"], .string("whatsapp"))
        XCTAssertEqual(told["reason"], .string("noReceipt"))
        XCTAssertEqual(told["fallback"], .string("sms"))
        XCTAssertEqual(told["willRetry"], .bool(false))
        XCTAssertTrue(try eventually { try status(engine, unconfirmed).deliveries.map(\.status) == ["sent", "sent"] })
        XCTAssertEqual(told["messageId"], try status(engine, unconfirmed).deliveries[0].messageId.map { .string($0) })
        XCTAssertEqual(try status(engine, confirmed).delivery, "delivered")
        XCTAssertEqual(try status(engine, confirmed).deliveries.map(\.channel), [.whatsapp])
        // Later polls find nothing more to send.
        clock.advance(seconds: 60)
        XCTAssertTrue(try eventually { try engine.store.nextDeliveryDue() == nil })
        XCTAssertEqual(sender.count, 3)
        // Only the unconfirmed one: the delivered message fell back to nothing.
        XCTAssertEqual(events.events.filter { $0["event"] == .string("deliveryFailed") }.count, 1)
    }

    func testAFailedReceiptFallsBackOnceAndARepeatedOneChangesNothing() throws {
        let (engine, sender) = try engine()
        defer { engine.close() }
        let id = try engine.verification.verifyPhoneNumber(phone, channel: .whatsapp)
            .verificationId
        _ = sender.wait(for: 1)
        XCTAssertTrue(try eventually { try status(engine, id).delivery == "sent" })
        let messageId = try XCTUnwrap(status(engine, id).providerMessageId)
        let failed = DeliveryReceipt(messageId: messageId, status: .failed, errorCode: "131026")
        // The same receipt seen by two engines (or replayed): one fallback.
        let second = try Engine(config: engine.config)
        defer { second.close() }
        let results = try [engine, second].map {
            try $0.store.applyReceipts(
                [failed], provider: "callback", now: SystemClock().now(), fallback: $0.config.fallbackPolicy)[0]
        }
        guard case .fellBack(let next) = results[0].effect else { return XCTFail("\(results[0].effect)") }
        XCTAssertEqual(next.channel, .sms)
        XCTAssertEqual(results[1].reason, "duplicate")
        engine.worker.lookNow()
        let sent = sender.wait(for: 2)
        XCTAssertEqual(sent.map(\.channel), [.whatsapp, .sms])
        XCTAssertEqual(sent[1].code, sent[0].code)
        XCTAssertTrue(try eventually { try status(engine, id).delivery == "sent" })
        let deliveries = try status(engine, id).deliveries
        XCTAssertEqual(deliveries.map(\.status), ["failed", "sent"])
        XCTAssertEqual(deliveries[0].errorCode, "131026")
        XCTAssertEqual(deliveries[0].messageId, messageId)
        // A late receipt of the first delivery is a duplicate too; an unknown ID is unknown.
        let late = try engine.store.applyReceipts(
            [
                DeliveryReceipt(messageId: messageId, status: .delivered),
                DeliveryReceipt(messageId: "nope", status: .failed),
            ],
            provider: "callback", now: SystemClock().now(), fallback: engine.config.fallbackPolicy)
        XCTAssertEqual(late.map(\.reason), ["duplicate", "unknownMessage"])
        XCTAssertEqual(sender.count, 2)
    }

    func testCallMeInsteadSendsTheSameCodeAgainAndCountsIt() throws {
        let (engine, sender) = try engine {
            $0.abuse.smsPerNumberPerHour = 3
            $0.channels.fallback = [:]
        }
        defer { engine.close() }
        let first = try engine.verification.verifyPhoneNumber(phone)
        // The same channel inside the window reuses the verification and sends nothing.
        XCTAssertEqual(try engine.verification.verifyPhoneNumber(phone).verificationId, first.verificationId)
        let again = try engine.verification.verifyPhoneNumber(phone, channel: .voice)
        XCTAssertEqual(again.verificationId, first.verificationId)
        XCTAssertEqual(again.channel, .voice)
        let sent = sender.wait(for: 2)
        XCTAssertEqual(sent.map(\.channel), [.sms, .voice])
        XCTAssertTrue(sent[1].body.contains(VoiceText.spoken(sent[0].code)))
        XCTAssertTrue(try eventually { try status(engine, first.verificationId).deliveries.count == 2 })
        XCTAssertEqual(try status(engine, first.verificationId).deliveries.map(\.channel), [.sms, .voice])
        // Three deliveries in the hour: the third is by SMS again, the fourth is refused.
        _ = try engine.verification.verifyPhoneNumber(phone, channel: .sms)
        XCTAssertThrowsError(try engine.verification.verifyPhoneNumber(phone, channel: .voice)) { error in
            XCTAssertEqual((error as? PhoneAuthError)?.detail("limit"), .string("smsPerNumberPerHour"))
        }
        // The code still signs in, and then it is no longer kept.
        let result = try engine.signIn.signIn(
            with: VerificationService.credential(verificationId: first.verificationId, verificationCode: sent[0].code))
        XCTAssertTrue(result.isNewUser)
        XCTAssertEqual(try sealedCodes(), 0)
    }

    func testAVoiceCallIsCountedByTheVoiceQuota() throws {
        let (engine, _) = try engine {
            $0.abuse.voicePerNumberPerHour = 1
            $0.resendAfterSeconds = 0
        }
        defer { engine.close() }
        _ = try engine.verification.verifyPhoneNumber(phone, channel: .voice)
        _ = try engine.verification.verifyPhoneNumber(phone, channel: .sms)
        XCTAssertThrowsError(try engine.verification.verifyPhoneNumber(phone, channel: .voice)) { error in
            XCTAssertEqual((error as? PhoneAuthError)?.detail("limit"), .string("voicePerNumberPerHour"))
        }
    }

    private func sealedCodes() throws -> Int64? {
        let connection = try readingConnection(dir)
        defer { connection.close() }
        return try connection.row("SELECT count(*) FROM verifications WHERE sealed_body IS NOT NULL", []) { $0.int(0) }
    }
}
