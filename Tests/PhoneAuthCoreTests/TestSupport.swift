import Glibc
import XCTest
@testable import PhoneAuthCore

/// A fresh directory for one test's database.
func temporaryDirectory() -> String {
    var template = Array("/tmp/phoneauth-test-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
}

/// Collects SMS and lets a test wait for them.
final class CapturingSender: SMSSender, @unchecked Sendable {
    private let lock = Lock()
    private var messages: [SMSMessage] = []
    var failuresBeforeSuccess = 0
    private(set) var calls = 0

    func send(_ message: SMSMessage) -> Bool {
        lock.withLock {
            calls += 1
            if failuresBeforeSuccess > 0 { failuresBeforeSuccess -= 1; return false }
            messages.append(message)
            lock.broadcast()
            return true
        }
    }

    var all: [SMSMessage] { lock.withLock { messages } }

    func waitForMessage(to phone: String, timeoutMs: Int64 = 5000) -> SMSMessage? {
        let deadline = SystemClock().now().adding(milliseconds: timeoutMs)
        return lock.withLock {
            while SystemClock().now() < deadline {
                if let m = messages.last(where: { $0.to == phone }) { return m }
                lock.wait(milliseconds: 50)
            }
            return nil
        }
    }
}

/// The code in an SMS body: the first run of digits.
func code(in body: String) -> String {
    String(body.drop(while: { !$0.isNumber }).prefix(while: { $0.isNumber }))
}

func makeConfig(_ dir: String, _ adjust: (inout EngineConfig) -> Void = { _ in }) -> EngineConfig {
    var config = EngineConfig(database: dir + "/auth.db")
    config.masterKey = Array(repeating: 7, count: 32)
    adjust(&config)
    return config
}

func assertError(_ code: PhoneAuthError.Code, reason: String? = nil, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
    do {
        try body()
        XCTFail("expected \(code.name), got success", file: file, line: line)
    } catch let error as PhoneAuthError {
        XCTAssertEqual(error.code.name, code.name, error.message, file: file, line: line)
        if let reason {
            XCTAssertEqual(error.details.first(where: { $0.0 == "reason" })?.1, .string(reason), file: file, line: line)
        }
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
    }
}

/// Signs in `phone` through a real SMS round trip.
func signInBySMS(_ engine: Engine, _ sender: CapturingSender, _ phone: String) throws -> SignInResult {
    let started = try engine.verifyPhoneNumber(phone)
    let message = try XCTUnwrap(sender.waitForMessage(to: phone))
    XCTAssertEqual(message.verificationId, started.verificationId)
    return try engine.signIn(with: PhoneCredential(verificationId: started.verificationId, verificationCode: code(in: message.body)))
}
