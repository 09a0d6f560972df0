import Foundation
@testable import PhoneAuthCore
import PhoneAuthKit
import XCTest

/// The same bad input gets the same refusal through PhoneAuthKit as through every other door
/// (Tests/refusals.json holds the cases and the answers; the C, Python and server tests read it).
final class SameRefusalTests: KitTestCase {
    private static let cases: JSONValue = {
        let path =
            String(#filePath).split(separator: "/").dropLast(3).map { "/" + $0 }.joined() + "/Tests/refusals.json"
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "{}"
        return (try? JSONCodec.parse(text))?["cases"] ?? .null
    }()

    private func refused(
        _ name: String, file: StaticString = #filePath, line: UInt = #line,
        _ body: () async throws -> Void
    ) async {
        let expected = Self.cases[name]
        XCTAssertNotNil(expected, "no case \(name) in Tests/refusals.json", file: file, line: line)
        do {
            try await body()
            XCTFail("\(name) was not refused", file: file, line: line)
        } catch let error as PhoneAuthKit.PhoneAuthError {
            let field = (try? JSONCodec.parse(error.detailsJSON))?["field"]?.stringValue
            XCTAssertEqual(error.code.name, expected?["code"]?.stringValue, file: file, line: line)
            XCTAssertEqual(Int64(error.code.status), expected?["status"]?.intValue, file: file, line: line)
            XCTAssertEqual(error.message, expected?["message"]?.stringValue, file: file, line: line)
            XCTAssertEqual(field, expected?["field"]?.stringValue, file: file, line: line)
        } catch {
            XCTFail("\(name): \(error)", file: file, line: line)
        }
    }

    func testEveryCaseIsRefusedAsAtTheOtherDoors() async throws {
        let auth = try open()
        let long = String(repeating: "x", count: 300)
        let user = try await auth.createUser()
        await refused("longDisplayName") { _ = try await auth.updateUser(uid: user.uid, displayName: .some(long)) }
        await refused("longDisplayName") { _ = try await auth.createUser(displayName: long) }
        let unchanged = try await auth.user(uid: user.uid)
        XCTAssertNil(unchanged.displayName)
        let session = try await auth.signIn(withCustomToken: try await auth.createCustomToken(uid: "totp-user"))
        await refused("longTotpAccountName") {
            _ = try await auth.startTotpEnrollment(idToken: session.idToken, accountName: long)
        }
        let token = String(repeating: "t", count: 16_385)
        await refused("longCaptchaToken") {
            _ = try await auth.verifyPhoneNumber(self.testNumber, appVerification: .captchaToken(token))
        }
        await refused("receiptWithoutSecret") { _ = try AppVerification(receipt: "r", secret: nil, captchaToken: nil) }
        await refused("notAnAddress") { _ = try await auth.verifyPhoneNumber(self.testNumber, clientIP: "203.0.113") }
        await refused("longLanguageCode") {
            _ = try await auth.verifyPhoneNumber(self.testNumber, languageCode: String(repeating: "a", count: 256))
        }
    }
}
