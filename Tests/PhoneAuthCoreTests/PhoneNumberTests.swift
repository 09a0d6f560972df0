import XCTest
@testable import PhoneAuthCore

final class PhoneNumberTests: XCTestCase {
    func testParsesCommonFormatsToE164() throws {
        for text in ["+1 650-555-3434", "+16505553434", "+1 (650) 555 3434"] {
            let phone = try PhoneNumber.parse(text)
            XCTAssertEqual(phone.e164, "+16505553434")
            XCTAssertEqual(phone.region, "US")
        }
        let gb = try PhoneNumber.parse("+44 7400 123456")
        XCTAssertEqual(gb.e164, "+447400123456")
        XCTAssertEqual(gb.type, .mobile)
    }

    func testRejectionsCarryTheReason() {
        assertError(.invalidPhoneNumber, reason: "invalidCountryCode") { _ = try PhoneNumber.parse("6505553434") }
        assertError(.invalidPhoneNumber, reason: "notANumber") { _ = try PhoneNumber.parse("hello") }
        assertError(.invalidPhoneNumber, reason: "tooShort") { _ = try PhoneNumber.parse("+1 23") }
        assertError(.invalidPhoneNumber, reason: "tooLong") { _ = try PhoneNumber.parse("+1 650 555 3434 12345678") }
        assertError(.invalidPhoneNumber, reason: "notValid") { _ = try PhoneNumber.parse("+1 111 555 3434") }
        assertError(.missingPhoneNumber) { _ = try PhoneNumber.parse("") }
    }

    func testMaskKeepsOnlyCountryDigitAndLastFour() {
        XCTAssertEqual(PhoneNumber.mask("+16505553434"), "+*******3434")
        XCTAssertEqual(PhoneNumber.mask("+447400123456"), "+********3456")
    }
}
