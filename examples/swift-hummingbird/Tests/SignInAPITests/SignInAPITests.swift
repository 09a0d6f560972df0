import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import PhoneAuthKit
import SignInAPI
import XCTest

/// The example as its users run it: PhoneAuthKit signs in a test number, and the routes do the
/// same over HTTP on loopback.
final class SignInAPITests: XCTestCase {
    func openEngine() throws -> PhoneAuth {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        var configuration = PhoneAuth.Configuration(database: directory.appendingPathComponent("auth.db").path)
        configuration.testPhoneNumbers = ["+16505551234": "123456"]
        let auth = try PhoneAuth(configuration: configuration)
        addTeardownBlock { auth.close() }
        return auth
    }

    func testPhoneAuthKitSignsInATestNumber() async throws {
        let auth = try openEngine()
        let verification = try await auth.verifyPhoneNumber("+16505551234")
        let session = try await auth.signIn(with: try PhoneAuth.credential(verificationID: verification.verificationID,
                                                                           verificationCode: "123456"))
        XCTAssertTrue(session.isNewUser)
        let token = try await auth.verifyIDToken(session.idToken)
        XCTAssertEqual(token.uid, session.user.uid)
    }

    func testTheRoutesSignInOverHTTP() async throws {
        let router = Router(context: SignInContext.self)
        SignInAPI(auth: try openEngine()).addRoutes(to: router)
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { port.yield($0.localAddress?.port ?? 0) })
        let server = Task { try await app.run() }
        defer { server.cancel() }
        // The port, or 0 if the server is not up within 10 seconds (the test then fails, not hangs).
        let timeout = Task { try await Task.sleep(for: .seconds(10)); port.finish() }
        defer { timeout.cancel() }
        var waiting = ports.makeAsyncIterator()
        let listening = await waiting.next() ?? 0
        XCTAssertNotEqual(listening, 0, "the server did not start")
        let base = "http://127.0.0.1:\(listening)"

        let (verifyStatus, verified) = try await send("\(base)/verify", ["phoneNumber": "+16505551234"])
        XCTAssertEqual(verifyStatus, 200)
        let verificationId = try XCTUnwrap(verified.verificationId)
        let (wrongStatus, wrong) = try await send("\(base)/sign-in", ["verificationId": verificationId, "code": "000000"])
        XCTAssertEqual(wrongStatus, 400)
        XCTAssertTrue(wrong.error?.message.contains("invalidVerificationCode") ?? false)
        let (status, session) = try await send("\(base)/sign-in", ["verificationId": verificationId, "code": "123456"])
        XCTAssertEqual(status, 200)
        XCTAssertEqual(session.isNewUser, true)
        let (meStatus, me) = try await send("\(base)/me", nil, bearer: session.idToken)
        XCTAssertEqual(meStatus, 200)
        XCTAssertEqual(me.uid, session.uid)
        XCTAssertEqual(me.phoneNumber, "+16505551234")
        let (anonymousStatus, _) = try await send("\(base)/me", nil)
        XCTAssertEqual(anonymousStatus, 401)
    }

    /// Every field any of the routes answers with.
    struct Answer: Decodable {
        struct Failure: Decodable { let message: String }
        let verificationId, uid, idToken, phoneNumber: String?
        let isNewUser: Bool?
        let error: Failure?
    }

    /// POSTs `body` as JSON (GETs without one); the status and the answer.
    private func send(_ url: String, _ body: [String: String]?, bearer: String? = nil) async throws -> (Int, Answer) {
        var request = URLRequest(url: URL(string: url)!)
        if let body {
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONEncoder().encode(body)
        }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try JSONDecoder().decode(Answer.self, from: data))
    }
}
