import Foundation
import PhoneAuthKit
import XCTest

/// What the Swift API's tests share: an engine on a fresh database with two test numbers.
class KitTestCase: XCTestCase {
    let testNumber = "+16505551234", secondNumber = "+16505554321"

    /// A directory removed after the test.
    func scratchDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory.path
    }

    func open(_ edit: (inout PhoneAuth.Configuration) -> Void = { _ in }) throws -> PhoneAuth {
        var configuration = PhoneAuth.Configuration(database: try scratchDirectory() + "/auth.db")
        configuration.testPhoneNumbers = [testNumber: "123456", secondNumber: "654321"]
        edit(&configuration)
        let auth = try PhoneAuth(configuration: configuration)
        addTeardownBlock { auth.close() }
        return auth
    }

    func assertThrows(
        _ code: PhoneAuthError.Code, status: Int32? = nil, file: StaticString = #filePath, line: UInt = #line,
        _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            XCTFail("no error; expected \(code)", file: file, line: line)
        } catch let error as PhoneAuthError {
            XCTAssertEqual(error.code, code, error.message, file: file, line: line)
            if let status { XCTAssertEqual(error.code.status, status, file: file, line: line) }
        } catch {
            XCTFail("not a PhoneAuthError: \(error)", file: file, line: line)
        }
    }
}

/// The Swift API as an app uses it: only `import PhoneAuthKit`.
final class PhoneAuthKitTests: KitTestCase {
    func testATestNumberSignsInAndItsTokensWork() async throws {
        let auth = try open()
        let verification = try await auth.verifyPhoneNumber("+1 650-555-1234")
        XCTAssertEqual(verification.codeLength, 6)
        XCTAssertGreaterThan(verification.expiresAt, Date())
        let credential = try PhoneAuth.credential(
            verificationID: verification.verificationID, verificationCode: "123456")
        XCTAssertFalse("\(credential)".contains("123456"), "a credential's description shows no code")
        let session = try await auth.signIn(with: credential)
        XCTAssertTrue(session.isNewUser)
        XCTAssertEqual(session.user.phoneNumber, testNumber)
        let token = try await auth.verifyIDToken(session.idToken, checkRevoked: true)
        XCTAssertEqual(token.uid, session.user.uid)
        XCTAssertEqual(token.phoneNumber, testNumber)
        XCTAssertTrue(token.claimsJSON.contains("\"sub\""))
        let refreshed = try await auth.refreshIDToken(session.refreshToken)
        XCTAssertNotEqual(refreshed.refreshToken, session.refreshToken)
        try await auth.signOut(refreshToken: refreshed.refreshToken)
        await assertThrows(.invalidUserToken) { _ = try await auth.refreshIDToken(refreshed.refreshToken) }
        // The code was used once.
        await assertThrows(.sessionExpired) { _ = try await auth.signIn(with: credential) }
    }

    func testARealNumberGetsItsCodeThroughTheSwiftSender() async throws {
        let auth = try open { $0.sms.appName = "Acme" }
        let inbox = Inbox()
        auth.setSMSSender { message in
            inbox.put(message); return true
        }
        let verification = try await auth.verifyPhoneNumber("+16505553434", languageCode: "fr-CA")
        let message = try XCTUnwrap(inbox.wait())
        XCTAssertEqual(
            [message.to, message.languageCode, message.verificationID, message.purpose, message.encoding],
            ["+16505553434", "fr", verification.verificationID, "signIn", "GSM-7"])
        XCTAssertEqual(message.segments, 1)
        XCTAssertTrue(message.body.hasSuffix("pour Acme."), message.body)
        let code = String(message.body.prefix(6))
        await assertThrows(.invalidVerificationCode, status: 17044) {
            _ = try await auth.signIn(
                with: try PhoneAuth.credential(
                    verificationID: verification.verificationID,
                    verificationCode: code == "000000" ? "111111" : "000000"))
        }
        let session = try await auth.signIn(
            with: try PhoneAuth.credential(verificationID: verification.verificationID, verificationCode: code))
        XCTAssertEqual(session.user.phoneNumber, "+16505553434")
    }

    func testTheSwiftSenderIsToldTheChannelAndTheCodeAndACallCanReplaceTheText() async throws {
        let auth = try open()
        let inbox = Inbox()
        auth.setSMSSender { message in
            inbox.put(message); return true
        }
        let verification = try await auth.verifyPhoneNumber("+16505553434", channel: .whatsapp)
        XCTAssertEqual(verification.channel, .whatsapp)
        let whatsapp = try XCTUnwrap(inbox.wait())
        XCTAssertEqual(whatsapp.channel, .whatsapp)
        XCTAssertEqual(whatsapp.code.count, 6)
        XCTAssertFalse("\(whatsapp)".contains(whatsapp.code), "a message's description shows no code")
        // "Call me instead": the same verification and code, now said by a call.
        let again = try await auth.verifyPhoneNumber("+16505553434", channel: .voice)
        XCTAssertEqual(again.verificationID, verification.verificationID)
        let call = try XCTUnwrap(inbox.wait())
        XCTAssertEqual(call.channel, .voice)
        XCTAssertEqual(call.code, whatsapp.code)
        XCTAssertTrue(call.body.contains(whatsapp.code.map(String.init).joined(separator: ", ")), call.body)
        let test = try await auth.verifyPhoneNumber(testNumber)
        XCTAssertNil(test.channel, "a test number sends nothing")
    }

    func testWrongCodesAreCountedByTheClientsAddress() async throws {
        let auth = try PhoneAuth(
            json: #"{"database": "\#(try scratchDirectory())/auth.db", "quotas": {"wrongCodesPerIpPer5Minutes": 2}}"#)
        defer { auth.close() }
        auth.setSMSSender { _ in true }
        for attempt in 1...3 {
            let verification = try await auth.verifyPhoneNumber("+1650555300\(attempt)")
            let wrong = try PhoneAuth.credential(
                verificationID: verification.verificationID, verificationCode: "0000000")
            await assertThrows(attempt < 3 ? .invalidVerificationCode : .tooManyRequests) {
                _ = try await auth.signIn(with: wrong, clientIP: "203.0.113.7")
            }
        }
    }

    func testASecondFactorTurnsSignInIntoAChallenge() async throws {
        let auth = try open()
        func credential(_ verification: Verification, _ code: String) throws(PhoneAuthError) -> PhoneCredential {
            try PhoneAuth.credential(verificationID: verification.verificationID, verificationCode: code)
        }
        let first = try await auth.signIn(with: try credential(try await auth.verifyPhoneNumber(testNumber), "123456"))
        let enrolment = try await auth.startPhoneEnrollment(idToken: first.idToken, phoneNumber: secondNumber)
        let enrolled = try await auth.finishPhoneEnrollment(
            idToken: first.idToken, credential: try credential(enrolment, "654321"),
            displayName: "work phone")
        XCTAssertEqual(enrolled.user.secondFactors.map(\.displayName), ["work phone"])
        var challenge: MultiFactorChallenge?
        do {
            _ = try await auth.signIn(with: try credential(try await auth.verifyPhoneNumber(testNumber), "123456"))
            XCTFail("a user with a second factor got tokens")
        } catch {
            XCTAssertEqual(error.code, .secondFactorRequired)
            challenge = error.multiFactorChallenge
            XCTAssertFalse(
                error.detailsJSON.contains(challenge?.session ?? "?"), "the session is kept out of what gets logged")
        }
        let hint = try XCTUnwrap(challenge?.hints.first)
        XCTAssertEqual(hint.phoneNumber?.suffix(4), "4321")
        XCTAssertFalse(hint.phoneNumber?.contains("650555") ?? true, "a hint's number is masked")
        let session = try XCTUnwrap(challenge?.session)
        let code = try await auth.sendSecondFactorCode(session: session, enrollmentID: hint.enrollmentID)
        let signedIn = try await auth.resolveSignIn(session: session, credential: try credential(code, "654321"))
        XCTAssertEqual(signedIn.user.uid, first.user.uid)
        let after = try await auth.unenroll(idToken: signedIn.idToken, enrollmentID: hint.enrollmentID)
        XCTAssertTrue(after.user.secondFactors.isEmpty)
    }

    func testAdministration() async throws {
        let auth = try open()
        let created = try await auth.createUser(uid: "alice", phoneNumber: "+16505550001", displayName: "Alice")
        let found = try await auth.user(phoneNumber: "+16505550001")
        XCTAssertEqual(found.uid, "alice")
        let updated = try await auth.updateUser(uid: "alice", disabled: true, displayName: .some(nil))
        XCTAssertTrue(updated.disabled)
        XCTAssertNil(updated.displayName)
        try await auth.setCustomUserClaims(uid: "alice", claimsJSON: #"{"role": "admin"}"#)
        let alice = try await auth.user(uid: "alice")
        XCTAssertEqual(alice.customClaimsJSON, #"{"role":"admin"}"#)
        await assertThrows(.invalidArgument) { try await auth.setCustomUserClaims(uid: "alice", claimsJSON: "{") }
        _ = try await auth.createUser(uid: "bob")
        let page = try await auth.listUsers(maxResults: 1)
        XCTAssertEqual(page.users.map(\.uid), [created.uid])
        let next = try await auth.listUsers(maxResults: 5, pageToken: page.nextPageToken)
        XCTAssertEqual(next.users.map(\.uid), ["bob"])
        let customToken = try await auth.createCustomToken(uid: "bob")
        XCTAssertEqual(customToken.split(separator: ".").count, 3)
        try await auth.deleteUser(uid: "bob")
        await assertThrows(.userNotFound, status: 17011) { _ = try await auth.user(uid: "bob") }
        let (status, json) = await auth.call("getUser", paramsJSON: #"{"uid": "alice"}"#)
        XCTAssertEqual(status, 0)
        XCTAssertTrue(json.contains("\"alice\""), json)
        let unknown = await auth.call("noSuchMethod", paramsJSON: "{}")
        XCTAssertEqual(unknown.status, PhoneAuthError.Code.unknownMethod.status)
    }

    func testTheTypedConfigurationReachesTheEngine() async throws {
        let auth = try open {
            $0.projectID = "acme-prod"
            $0.issuer = "https://auth.acme.test/acme-prod"
            $0.idTokenTtlSeconds = 600
            $0.codeLength = 8
            $0.sms.provider = "callback"
        }
        let session = try await auth.signIn(
            with: try PhoneAuth.credential(
                verificationID: try await auth.verifyPhoneNumber(testNumber).verificationID, verificationCode: "123456")
        )
        XCTAssertEqual(session.expiresIn, 600)
        let token = try await auth.verifyIDToken(session.idToken)
        XCTAssertEqual(token.expiresAt.timeIntervalSince(token.issuedAt), 600)
        XCTAssertTrue(token.claimsJSON.contains(#""aud":"acme-prod""#), token.claimsJSON)
        XCTAssertTrue(token.claimsJSON.contains(#""iss":"https://auth.acme.test/acme-prod""#), token.claimsJSON)
        let inbox = Inbox()
        auth.setSMSSender {
            inbox.put($0); return true
        }
        let verification = try await auth.verifyPhoneNumber("+16505553434")
        XCTAssertEqual(verification.codeLength, 8)
        XCTAssertNotNil(inbox.wait())
    }

    func testEventsAndTheKeySet() async throws {
        let auth = try open()
        let events = EventLog(), signIns = EventLog()
        auth.setEventHandler { event in
            events.add(event.json)
            if event.name == "signInSucceeded" {
                signIns.add("\(event.string("clientIp") ?? "-") \(event.bool("isNewUser").map(String.init) ?? "-")")
            }
        }
        let verification = try await auth.verifyPhoneNumber(testNumber)
        _ = try await auth.signIn(
            with: try PhoneAuth.credential(verificationID: verification.verificationID, verificationCode: "123456"),
            clientIP: "203.0.113.9")
        let signedIn = try XCTUnwrap(events.all.first { $0.contains(#""event":"signInSucceeded""#) })
        XCTAssertTrue(signedIn.contains(#""clientIp":"203.0.113.9""#), signedIn)
        XCTAssertFalse(signedIn.contains("650555"), "numbers are masked: \(signedIn)")
        XCTAssertEqual(signIns.all, ["203.0.113.9 true"], "the event's fields as values")
        let keys = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(auth.jwksJSON.utf8)) as? [String: [[String: Any]]])
        XCTAssertEqual(keys["keys"]?.first?["kty"] as? String, "EC")
    }

    func testPrintingNeverShowsASecret() async throws {
        let masterKey = String(repeating: "ab", count: 32)
        let auth = try open { $0.masterKey = masterKey }
        let inbox = Inbox()
        auth.setSMSSender {
            inbox.put($0); return true
        }
        let verification = try await auth.verifyPhoneNumber("+16505553434")
        let message = try XCTUnwrap(inbox.wait())
        let code = String(message.body.prefix(6))
        let credential = try PhoneAuth.credential(verificationID: verification.verificationID, verificationCode: code)
        let session = try await auth.signIn(with: credential)
        var configuration = PhoneAuth.Configuration(database: "postgresql://app:s3cr3t@db.internal/auth")
        configuration.masterKey = masterKey
        for value in [message, credential, session, configuration] as [Any] {
            var shown = "\(value)"
            dump(value, to: &shown)
            for secret in [code, session.idToken, session.refreshToken, masterKey, "s3cr3t"] {
                XCTAssertFalse(shown.contains(secret), "\(type(of: value)) shows a secret: \(shown)")
            }
        }
    }

    func testABadConfigurationNamesItsKey() throws {
        XCTAssertThrowsError(try open { $0.codeLength = 3 }) { error in
            let error = error as? PhoneAuthError
            XCTAssertEqual(error?.code, .invalidConfiguration)
            XCTAssertEqual(error?.code.status, 18001)
            XCTAssertEqual(error?.detailsJSON, #"{"key":"codeLength"}"#)
        }
        XCTAssertThrowsError(try open { $0.sms.templates = ["fr": "no code"] }) { error in
            XCTAssertTrue((error as? PhoneAuthError)?.message.contains("sms.templates.fr") == true)
        }
        XCTAssertThrowsError(try PhoneAuth(json: #"{"database": "#)) { error in
            XCTAssertEqual((error as? PhoneAuthError)?.code, .invalidArgument)
        }
        let directory = try scratchDirectory()
        let auth = try PhoneAuth(
            json: #"{"database": "\#(directory)/json.db", "testPhoneNumbers": {"+16505551234": "123456"}}"#)
        XCTAssertEqual(try auth.verifyPhoneNumber(testNumber).codeLength, 6)
        auth.close()
        XCTAssertThrowsError(try auth.verifyPhoneNumber(testNumber))
    }
}

/// Messages the SMS sender got, for a test to wait on.
// @unchecked: its state is only touched under its lock (a test double).
final class Inbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var messages: [SMSMessage] = []

    func put(_ message: SMSMessage) {
        condition.lock()
        messages.append(message)
        condition.signal()
        condition.unlock()
    }

    /// The next message; the deadline only matters when the test fails.
    func wait(seconds: Double = 30) -> SMSMessage? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(seconds)
        while messages.isEmpty, condition.wait(until: deadline) {}
        return messages.isEmpty ? nil : messages.removeFirst()
    }
}

/// Events the handler got.
// @unchecked: its state is only touched under its lock (a test double).
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [String] = []

    func add(_ event: String) { lock.withLock { events.append(event) } }
    var all: [String] { lock.withLock { events } }
}
