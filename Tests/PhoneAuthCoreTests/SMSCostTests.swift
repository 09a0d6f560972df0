import XCTest
@testable import PhoneAuthCore

final class SMSCostTests: XCTestCase {
    func testGSM7TextFitsOneMessageUpTo160Septets() {
        assertCost("123456 is your verification code.", .gsm7, 33, 1)
        assertCost(String(repeating: "a", count: 160), .gsm7, 160, 1)
        assertCost(String(repeating: "a", count: 161), .gsm7, 161, 2)
        assertCost(String(repeating: "a", count: 306), .gsm7, 306, 2)
        assertCost(String(repeating: "a", count: 307), .gsm7, 307, 3)
        assertCost("", .gsm7, 0, 1)
        // GSM-7's own accented letters and Greek capitals are one septet each.
        assertCost("Ça coûte", .ucs2, 8, 1)  // û is not in GSM-7
        assertCost("Ça côute ΔΩ", .ucs2, 11, 1)
        assertCost("Ça ète ΔΩ é", .gsm7, 11, 1)
    }

    func testExtensionCharactersCostTwoSeptetsAndStayInOneSegment() {
        assertCost("€5 [ok]", .gsm7, 10, 1)
        assertCost(String(repeating: "€", count: 80), .gsm7, 160, 1)
        assertCost(String(repeating: "€", count: 81), .gsm7, 162, 2)
        // 152 septets then an escape pair: it does not fit the first segment's last septet.
        let straddling = String(repeating: "a", count: 152) + "€" + String(repeating: "a", count: 152)
        XCTAssertEqual(SMSCost(of: straddling).units, 306)
        XCTAssertEqual(SMSCost(of: straddling).segments, 3)
        XCTAssertEqual(
            SMSCost(of: String(repeating: "a", count: 151) + "€" + String(repeating: "a", count: 153)).segments, 2)
    }

    func testCyrillicAndCJKGoAsUCS2In70And67Units() {
        let russian = "123456 — ваш код подтверждения."
        assertCost(russian, .ucs2, russian.utf16.count, 1)
        assertCost(String(repeating: "码", count: 70), .ucs2, 70, 1)
        assertCost(String(repeating: "码", count: 71), .ucs2, 71, 2)
        assertCost(String(repeating: "码", count: 134), .ucs2, 134, 2)
        assertCost(String(repeating: "码", count: 135), .ucs2, 135, 3)
        // A character outside the BMP is two code units, never split between segments.
        assertCost(String(repeating: "🙂", count: 35), .ucs2, 70, 1)
        assertCost(String(repeating: "码", count: 66) + "🙂" + "码", .ucs2, 69, 1)
        XCTAssertEqual(
            SMSCost(of: String(repeating: "码", count: 65) + "🙂" + String(repeating: "码", count: 67)).segments, 2)
        XCTAssertEqual(
            SMSCost(of: String(repeating: "码", count: 66) + "🙂" + String(repeating: "码", count: 66)).segments, 3)
    }

    func testEveryBuiltInTemplateIsOneSegmentWithAnyCode() throws {
        let text = try SMSText.builtIn()
        for language in SMSTemplates.languages {
            let body = text.body(language: language, code: "1234567890", minutes: 5)
            XCTAssertEqual(SMSCost(of: body).segments, 1, "\(language): \(body)")
        }
    }
}

private func assertCost(
    _ text: String, _ encoding: SMSCost.Encoding, _ units: Int, _ segments: Int,
    file: StaticString = #filePath, line: UInt = #line
) {
    let cost = SMSCost(of: text)
    XCTAssertEqual(cost.encoding, encoding, "encoding of \(text)", file: file, line: line)
    XCTAssertEqual(cost.units, units, "units of \(text)", file: file, line: line)
    XCTAssertEqual(cost.segments, segments, "segments of \(text)", file: file, line: line)
}
