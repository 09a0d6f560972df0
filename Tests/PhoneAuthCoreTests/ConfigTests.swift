import XCTest
@testable import PhoneAuthCore

final class ConfigTests: XCTestCase {
    private func read(_ text: String) throws -> EngineConfig { try EngineConfig.read(try JSONCodec.parse(text)) }

    func testDefaultsAndOverrides() throws {
        let c = try read(
            #"{"database": "x.db", "codeLength": 8, "signingAlgorithm": "RS256", "sms": {"provider": "console"}}"#)
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

    func testOnlyPlainNamesAreQuotedBack() throws {
        for name in ["colour", "sms.retries", "a", "x-y_z.1", String(repeating: "a", count: 64)] {
            XCTAssertTrue(Echo.isQuotable(name), name)
        }
        let token =
            "MDFhMjA5Zjk4MDdjXzVFc1J0bFVtNlV2aFhBMQ.FzkCmLm4Vx8-LRmqKav2Ow."
            + "0.leWRGGODcR5EW9003P-QY7wb6ArpLjvwM_T65oAbykw"
        for name in ["", "1abc", "_a", "a b", "a/b", "é", String(repeating: "a", count: 65), token] {
            XCTAssertFalse(Echo.isQuotable(name), name)
        }
        do {
            _ = try read(#"{"database": "x.db", "sms": {"provider": "console", "\#(token)": 1}}"#)
            XCTFail("accepted an unknown key")
        } catch let error as PhoneAuthError {
            XCTAssertFalse(error.message.contains("MDFh") || "\(error.details)".contains("MDFh"), error.message)
            XCTAssertEqual(error.details.first { $0.0 == "position" }?.1, .int(2))
            XCTAssertEqual(error.details.first { $0.0 == "key" }?.1, .string("sms"))
        }
    }

    /// What the URI says about connecting is taken, never overridden in silence (issue 28, item 3).
    func testTheURIsConnectionParametersAreHonouredOrRefused() throws {
        let uri = "postgresql://u:secret@h1:5432,h2:5433/db?target_session_attrs=read-write"
        XCTAssertEqual(try read(#"{"database": "\#(uri)"}"#).postgres.connectTimeoutSeconds, 5, "the default")
        let short = try read(#"{"database": "\#(uri)&connect_timeout=2"}"#)
        XCTAssertEqual(short.postgres.connectTimeoutSeconds, 2, "the URI's timeout, not the default")
        let same = #"{"database": "\#(uri)&connect_timeout=7", "postgres": {"connectTimeoutSeconds": 7}}"#
        XCTAssertEqual(try read(same).postgres.connectTimeoutSeconds, 7)
        let keepalive = try read(#"{"database": "\#(uri)&keepalives_idle=30"}"#).postgres
        XCTAssertTrue(keepalive.uriSets("keepalives_idle"), "left to the URI, not replaced by the engine's")
        XCTAssertFalse(keepalive.uriSets("keepalives_count"))
        for (text, key) in [
            (#"{"database": "\#(uri)&connect_timeout=2", "postgres": {"connectTimeoutSeconds": 5}}"#,
             "postgres.connectTimeoutSeconds"),
            (#"{"database": "\#(uri)&connect_timeout=soon"}"#, "database"),
            (#"{"database": "\#(uri)&options=-c%20search_path%3Dother"}"#, "database"),
            (#"{"database": "\#(uri)&client_encoding=LATIN1"}"#, "database"),
        ] {
            do {
                _ = try read(text)
                XCTFail("accepted \(text)")
            } catch let error as PhoneAuthError {
                XCTAssertEqual(error.code, .invalidConfiguration, text)
                XCTAssertEqual(error.detail("key"), .string(key), text)
                XCTAssertFalse(error.message.contains("secret"), "the password is never shown: \(error.message)")
            }
        }
        XCTAssertNoThrow(try read(#"{"database": "\#(uri)&client_encoding=utf8"}"#))
    }
}
