import XCTest
@testable import PhoneAuthCore

/// Firebase's SMS toll fraud protection (pumping.tollFraud): the captcha provider rates the send,
/// and tollFraudManagedRules block or record it under phoneEnforcementState, per engine or tenant.
final class TollFraudTests: XCTestCase {
    private let number = "+16505553434"

    /// Rates every send `risk`, and keeps the numbers it was asked to rate.
    // @unchecked: the engine calls it on the test's own thread (verifyPhoneNumber), one call at a time.
    final class RatingVerifier: CaptchaVerifier, @unchecked Sendable {
        var risk: Double? = 0.95
        private(set) var phoneNumbers: [String?] = []
        func verify(token: String, clientIp: String?, phoneNumber: String?) -> CaptchaVerdict? {
            phoneNumbers.append(phoneNumber)
            return CaptchaVerdict(success: true, score: 0.9, tollFraudRisk: risk)
        }
    }

    private func makeEngine(
        _ dir: String = temporaryDirectory(), tollFraud: String?, enforce: Bool? = nil, resendAfter: Int64 = 0
    ) throws -> (Engine, RatingVerifier) {
        let engine = try Engine(
            config: makeConfig(dir) {
                $0.pumping = PumpingPolicy()
                if let tollFraud {
                    $0.pumping.tollFraud = try! TollFraudPolicy.read(
                        try! ObjectReader(try! JSONCodec.parse(tollFraud), path: "pumping.tollFraud"))
                }
                $0.appVerificationEnforce = enforce
                $0.resendAfterSeconds = resendAfter
            })
        engine.setSMSSender(CapturingSender())
        let verifier = RatingVerifier()
        engine.appVerification.setCaptchaVerifier(verifier)
        return (engine, verifier)
    }

    private func send(
        _ engine: Engine, _ token: String = "t", tenant: TenantID? = nil, channel: Channel? = nil
    ) throws {
        _ = try engine.verification.verifyPhoneNumber(
            number, appProof: .captcha(token: token), channel: channel, tenant: tenant)
    }

    /// Asserts that `call` is refused for the provider's rating, and tells nothing more.
    private func assertRatedOut(_ call: () throws -> Void, line: UInt = #line) {
        XCTAssertThrowsError(try call(), line: line) { error in
            let error = error as? PhoneAuthError
            XCTAssertEqual(error?.code, .captchaCheckFailed, line: line)
            XCTAssertEqual(error?.details.map(\.0), ["reason"], "neither the risk nor the rule is told", line: line)
            XCTAssertEqual(error?.detail("reason"), .string("tollFraudRisk"), line: line)
        }
    }

    private func decisions(_ engine: Engine) -> [JSONValue] {
        engine.call("listPumpingDecisions", params: .object([])).result["decisions"]?.arrayValue ?? []
    }

    private let enforcing = """
        {"phoneEnforcementState": "ENFORCE", "useSmsTollFraudProtection": true,
         "tollFraudManagedRules": [{"startScore": 0.9, "action": "BLOCK"}, {"startScore": 0.7, "action": "BLOCK"}]}
        """

    func testEnforcedARiskAtOrAboveAStartScoreIsRefusedAndRecordedWithoutAVerification() throws {
        let dir = temporaryDirectory()
        let (engine, verifier) = try makeEngine(dir, tollFraud: enforcing)
        assertRatedOut { try send(engine, "a") }
        XCTAssertEqual(verifier.phoneNumbers, [number], "the provider is given the number to rate")
        XCTAssertEqual(try rowCount(dir, "verifications"), 0)
        let decision = try XCTUnwrap(decisions(engine).first)
        XCTAssertEqual(decision["rule"], .string("tollFraudRisk"))
        XCTAssertEqual(decision["action"], .string("refused"))
        XCTAssertEqual(decision["risk"]?.doubleValue, 0.95)
        XCTAssertEqual(decision["startScore"]?.doubleValue, 0.9, "the highest start at or below the risk")
        XCTAssertEqual(decision["scope"], .string("+1650555"))
        // Below every start score, the send goes ahead; the prefix is not blocked by the rating.
        verifier.risk = 0.5
        XCTAssertNoThrow(try send(engine, "b"))
        verifier.risk = nil  // a provider that gives no rating
        XCTAssertNoThrow(try send(engine, "c"))
        XCTAssertEqual(decisions(engine).count, 1)
    }

    func testAuditRecordsWhatItWouldBlockAndSends() throws {
        let (engine, _) = try makeEngine(tollFraud: enforcing.replacingOccurrences(of: "ENFORCE", with: "AUDIT"))
        XCTAssertNoThrow(try send(engine))
        XCTAssertEqual(decisions(engine).map { $0["action"] }, [.string("flagged")])
        XCTAssertEqual(decisions(engine).first?["rule"], .string("tollFraudRisk"))
    }

    func testOffByDefaultTheProviderIsNeitherGivenTheNumberNorObeyed() throws {
        let (engine, verifier) = try makeEngine(tollFraud: nil, enforce: true)
        XCTAssertNoThrow(try send(engine))
        XCTAssertEqual(verifier.phoneNumbers, [nil])
        XCTAssertEqual(decisions(engine).count, 0)
        // Without useSmsTollFraudProtection, no rating is asked for either.
        let (quiet, quietVerifier) = try makeEngine(
            tollFraud: enforcing.replacingOccurrences(of: "true", with: "false"), enforce: true)
        XCTAssertNoThrow(try send(quiet))
        XCTAssertEqual(quietVerifier.phoneNumbers, [nil])
    }

    func testATokenIsCheckedAndRatedWhereAppVerificationIsNotEnforced() throws {
        let (engine, verifier) = try makeEngine(tollFraud: enforcing, enforce: false)
        assertRatedOut { try send(engine, "a") }
        XCTAssertEqual(verifier.phoneNumbers, [number])
        // Without a token there is nothing to rate, and no proof is required.
        XCTAssertNoThrow(try engine.verification.verifyPhoneNumber(number))
        // A token that fails its check leaves the send unrated, not refused: leaving it out
        // would do as much.
        XCTAssertNoThrow(try send(engine, "a"), "a token used before")
        engine.appVerification.setCaptchaVerifier(nil)
        XCTAssertNoThrow(try send(engine, "b"), "no verifier")
    }

    func testAResendByAnotherChannelIsRatedAsANewCodeIs() throws {
        let (engine, verifier) = try makeEngine(tollFraud: enforcing, resendAfter: 60)
        verifier.risk = 0.1
        try send(engine, "a")
        verifier.risk = 0.95
        assertRatedOut { try send(engine, "b", channel: .voice) }
        XCTAssertEqual(decisions(engine).map { $0["channel"] }, [.string("voice")])
    }

    func testTheProvidersRiskIsReadOnlyBetweenZeroAndOne() {
        for risk in [-0.1, 1.5, 95] {
            XCTAssertNil(CaptchaVerdict(success: true, score: 0.9, tollFraudRisk: risk).checked, "\(risk)")
        }
        XCTAssertNotNil(CaptchaVerdict(success: true, score: 0.9, tollFraudRisk: 1).checked)
        XCTAssertNotNil(CaptchaVerdict(success: true, score: 0.9).checked)
    }

    func testATenantSetsItsOwnRulesOverTheEngines() throws {
        let (engine, _) = try makeEngine(tollFraud: enforcing)
        let (status, result) = engine.call(
            "createTenant",
            params: try JSONCodec.parse(
                """
                {"tenantId": "audited", "displayName": "Shop", "pumping": {"tollFraud":
                 {"phoneEnforcementState": "AUDIT", "useSmsTollFraudProtection": true,
                  "tollFraudManagedRules": [{"startScore": 0.5, "action": "BLOCK"}]}}}
                """))
        XCTAssertEqual(status, 0, "\(result)")
        XCTAssertNoThrow(try send(engine, "a", tenant: try TenantID("audited")))
        assertRatedOut { try send(engine, "b") }
        XCTAssertEqual(decisions(engine).map { $0["action"] }, [.string("refused"), .string("flagged")])
        let shown = engine.call("getTenant", params: .object([("tenantId", .string("audited"))])).result["tenant"]
        XCTAssertEqual(shown?["pumping"]?["tollFraud"]?["phoneEnforcementState"], .string("AUDIT"))
        XCTAssertEqual(
            shown?["pumping"]?["tollFraud"]?["tollFraudManagedRules"]?.arrayValue?.first?["startScore"]?.doubleValue,
            0.5)
    }

    func testTheSettingsAreCheckedAndNamedInErrors() throws {
        func refusal(_ tollFraud: String) -> String? {
            let config = "{\"database\": \"x.db\", \"pumping\": {\"tollFraud\": \(tollFraud)}}"
            do {
                _ = try EngineConfig.read(try JSONCodec.parse(config))
                return nil
            } catch let error as PhoneAuthError { return error.detail("key")?.stringValue } catch { return "\(error)" }
        }
        let key = "pumping.tollFraud."
        XCTAssertEqual(refusal("{\"phoneEnforcementState\": \"on\"}"), key + "phoneEnforcementState")
        XCTAssertEqual(refusal("{\"useSmsTollFraudProtection\": 1}"), key + "useSmsTollFraudProtection")
        for rules in [
            "[{\"startScore\": 1.5, \"action\": \"BLOCK\"}]", "[{\"startScore\": 0.5, \"action\": \"ALLOW\"}]",
            "[{\"startScore\": 0.5}]", "{}",
        ] {
            XCTAssertEqual(refusal("{\"tollFraudManagedRules\": \(rules)}"), key + "tollFraudManagedRules", rules)
        }
        XCTAssertEqual(refusal("{\"recaptchaKeys\": []}"), key + "recaptchaKeys")
        XCTAssertNil(refusal(enforcing))
    }
}
