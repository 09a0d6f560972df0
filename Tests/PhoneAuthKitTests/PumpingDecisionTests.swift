import PhoneAuthKit
import XCTest

/// `pumpingDecisions(maxResults:pageToken:)`: the defense's decisions, typed, as the JSON method
/// `listPumpingDecisions` gives them, with its refusals.
final class PumpingDecisionTests: KitTestCase {
    func testARefusedSendIsADecisionReadTyped() async throws {
        let auth = try open()  // the library's default: the defense enforces
        auth.setSMSSender { _ in true }
        for i in 0..<5 { _ = try await auth.verifyPhoneNumber("+1650253000\(i)") }
        await assertThrows(.quotaExceeded) { _ = try await auth.verifyPhoneNumber("+16502530005") }
        let page = try await auth.pumpingDecisions()
        XCTAssertNil(page.nextPageToken)
        let decision = try XCTUnwrap(page.decisions.first)
        XCTAssertEqual(page.decisions.count, 1)
        XCTAssertEqual(decision.action, .refused)
        XCTAssertEqual(decision.scopeKind, .prefix)
        XCTAssertEqual(decision.scope, "+1650253")
        XCTAssertEqual(decision.rule, .hour)
        XCTAssertEqual([decision.sent, decision.verified, decision.allowance], [5, 0, 5])
        XCTAssertEqual(decision.region, "US")
        XCTAssertNil(decision.tenantID)
        XCTAssertEqual(decision.channel, .sms)
        XCTAssertGreaterThan(decision.until, decision.time)
        // The JSON method's field for field.
        let json = await auth.call("listPumpingDecisions", paramsJSON: "{}")
        XCTAssertTrue(json.json.contains(#""id":"\#(decision.id)""#), json.json)
    }

    func testABadPageIsRefusedAsTheJSONMethodRefusesIt() async throws {
        let auth = try open()
        for (maxResults, pageToken, json) in [
            (0, nil as String?, #"{"maxResults": 0}"#), (100, "x", #"{"pageToken": "x"}"#),
        ] {
            let answer = await auth.call("listPumpingDecisions", paramsJSON: json)
            do {
                _ = try await auth.pumpingDecisions(maxResults: maxResults, pageToken: pageToken)
                XCTFail("\(json) was not refused")
            } catch {
                XCTAssertEqual(error.code, .invalidArgument, json)
                XCTAssertTrue(answer.json.contains(error.message), "\(answer.json) / \(error.message)")
            }
        }
    }
}
