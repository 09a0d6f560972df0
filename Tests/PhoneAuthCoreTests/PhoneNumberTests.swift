import CPhoneNumbers
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

    /// pa_phone_parse classifies a number from the region it has just found instead of calling
    /// GetNumberType (which finds it again): the same type as GetNumberType for generated numbers of
    /// calling codes shared by several regions (and a few of one region, and non-geographic ones).
    func testTypeIsLibphonenumbersOwn() {
        let callingCodes = ["1", "7", "44", "39", "47", "61", "262", "590", "599", "358", "212", "290", "49", "33", "91",
            "800", "882", "979"]
        var random = SeededGenerator(seed: 0x9_4F0E)
        var valid = 0
        for _ in 0..<6000 {
            let code = callingCodes.randomElement(using: &random)!
            let national = (0..<Int.random(in: 6...11, using: &random)).map { _ in
                String(Int.random(in: 0...9, using: &random))
            }.joined()
            let text = "+" + code + national
            var result = pa_phone_result()
            pa_phone_parse(text, "ZZ", &result)
            let reference = pa_phone_number_type(text)
            if result.reason == PA_PHONE_OK.rawValue {
                valid += 1
                XCTAssertEqual(result.type, reference, text)
            } else {
                XCTAssertTrue(reference == -1 || reference == 11, "\(text): not valid, yet of type \(reference)")
            }
        }
        XCTAssertGreaterThan(valid, 600, "enough of the generated numbers are valid to compare their types")
    }
}
