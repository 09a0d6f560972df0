import XCTest
@testable import PhoneAuthCore

final class ConfigTests: XCTestCase {
    private func read(_ text: String) throws -> EngineConfig { try EngineConfig.read(try JSONCodec.parse(text)) }

    func testDefaultsAndOverrides() throws {
        let c = try read(#"{"database": "x.db", "codeLength": 8, "signingAlgorithm": "RS256", "sms": {"provider": "console"}}"#)
        XCTAssertEqual(c.codeLength, 8)
        XCTAssertEqual(c.signingAlgorithm, .rs256)
        XCTAssertEqual(c.smsProvider, .console)
        XCTAssertEqual(c.codeTtlSeconds, 300)
        XCTAssertEqual(c.maxAttempts, 5)
        XCTAssertEqual(c.resendAfterSeconds, 60)
    }

    func testErrorsNameTheKey() {
        for (text, key) in [
            (#"{"database": "x.db", "colour": 1}"#, "colour"),
            (#"{"database": "x.db", "sms": {"retries": 1}}"#, "sms.retries"),
            (#"{"database": "x.db", "codeLength": 5}"#, "codeLength"),
            (#"{"database": "x.db", "codeLength": "6"}"#, "codeLength"),
            (#"{}"#, "database"),
            (#"{"database": "x.db", "testPhoneNumbers": {"+1 23": "123456"}}"#, "testPhoneNumbers"),
            (#"{"database": "x.db", "testPhoneNumbers": {"+16505551234": "12345"}}"#, "testPhoneNumbers"),
            (#"{"database": "x.db", "masterKey": "short"}"#, "masterKey"),
        ] {
            do {
                _ = try read(text)
                XCTFail("accepted \(text)")
            } catch let error as PhoneAuthError {
                XCTAssertEqual(error.code, .invalidConfiguration)
                XCTAssertEqual(error.details.first(where: { $0.0 == "key" })?.1, .string(key), text)
            } catch { XCTFail("\(error)") }
        }
    }

    func testParseErrorsDoNotQuoteTheInput() {
        do {
            _ = try JSONCodec.parse(#"{"verificationCode": "482915"#)
            XCTFail("accepted")
        } catch {
            XCTAssertFalse(error.message.contains("482915"), error.message)
            XCTAssertEqual(error.line, 1)
        }
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        XCTAssertThrowsError(try JSONCodec.parse(deep))
        XCTAssertNoThrow(try JSONCodec.parse(String(repeating: "[", count: 60) + String(repeating: "]", count: 60)))
    }

    func testLanguageNamesAreCanonical() throws {
        XCTAssertEqual(try read(#"{"database": "x.db", "defaultLanguageCode": "FR"}"#).defaultLanguageCode, "fr")
        XCTAssertEqual(try read(#"{"database": "x.db", "defaultLanguageCode": "zh"}"#).defaultLanguageCode, "zh-CN")
    }

    func testAtMostTenTestNumbers() {
        let entries = (0..<11).map { "\"+1650555\(1200 + $0)\": \"123456\"" }.joined(separator: ",")
        XCTAssertThrowsError(try read(#"{"database": "x.db", "testPhoneNumbers": {"# + entries + "}}"))
    }
}
