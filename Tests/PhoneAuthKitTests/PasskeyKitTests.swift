import Foundation
import PhoneAuthKit
import XCTest

/// Passkeys through the Swift API: a user who signed in by SMS registers a passkey made by a
/// software authenticator and signs in with it, with no code; the refusals keep their reasons.
final class PasskeyKitTests: KitTestCase {
    let rpID = "login.example.com", origin = "https://login.example.com"

    func openWithPasskeys() throws -> PhoneAuth {
        let config: [String: Any] = [
            "database": try scratchDirectory() + "/auth.db",
            "testPhoneNumbers": [testNumber: "123456", secondNumber: "654321"],
            "passkeys": ["rpId": rpID, "rpName": "Example", "origins": [origin]],
        ]
        let text = String(decoding: try JSONSerialization.data(withJSONObject: config), as: UTF8.self)
        let auth = try PhoneAuth(json: text)
        addTeardownBlock { auth.close() }
        return auth
    }

    func signIn(_ auth: PhoneAuth) async throws -> PhoneAuthKit.SignInResult {
        let verification = try await auth.verifyPhoneNumber(testNumber)
        return try await auth.signIn(
            with: try PhoneAuth.credential(verificationID: verification.verificationID, verificationCode: "123456"))
    }

    func object(_ json: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    /// The refusal's reason, from the error's details.
    func reason(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as PhoneAuthKit.PhoneAuthError {
            XCTAssertEqual(error.code, .invalidCredential, error.message)
            return (try? object(error.detailsJSON))?["reason"] as? String
        } catch {
            return "\(error)"
        }
    }

    func testAPasskeyEnrolledAfterAnSMSSignInSignsTheUserInAgainWithoutACode() async throws {
        let auth = try openWithPasskeys(), phone = try await signIn(auth)
        let authenticator = KitAuthenticator(rpID: rpID, origin: origin)

        let creation = try await auth.startPasskeyEnrollment(idToken: phone.idToken)
        let options = try object(creation)
        XCTAssertEqual((options["rp"] as? [String: Any])?["id"] as? String, rpID)
        XCTAssertEqual((options["excludeCredentials"] as? [Any])?.count, 0)
        let enrolled = try await auth.finishPasskeyEnrollment(
            idToken: phone.idToken, credential: try authenticator.register(creation), name: "Laptop")
        XCTAssertEqual(enrolled.passkey.credentialID, authenticator.credentialIDText)
        XCTAssertEqual(enrolled.passkey.name, "Laptop")
        XCTAssertEqual(enrolled.passkey.algorithm, -7)
        XCTAssertEqual(enrolled.passkey.attestationFormat, "none")
        XCTAssertNil(enrolled.passkey.lastUsedAt)
        XCTAssertEqual(enrolled.signIn.user.uid, phone.user.uid)
        XCTAssertNotEqual(enrolled.signIn.refreshToken, phone.refreshToken, "fresh tokens of a carried-on session")
        let verified = try await auth.verifyIDToken(enrolled.signIn.idToken)
        XCTAssertEqual(verified.uid, phone.user.uid)
        // The passkey is excluded from the next enrolment's options.
        let again = try object(try await auth.startPasskeyEnrollment(idToken: enrolled.signIn.idToken))
        XCTAssertEqual(
            ((again["excludeCredentials"] as? [[String: Any]])?.first)?["id"] as? String,
            authenticator.credentialIDText)

        let request = try await auth.startPasskeySignIn(clientIP: "198.51.100.7")
        XCTAssertEqual(try object(request)["rpId"] as? String, rpID)
        let assertion = try authenticator.assert(request)
        let signedIn = try await auth.finishPasskeySignIn(credential: assertion, clientIP: "198.51.100.7")
        XCTAssertEqual(signedIn.user.uid, phone.user.uid)
        XCTAssertFalse(signedIn.isNewUser)
        let claims = try object(try await auth.verifyIDToken(signedIn.idToken).claimsJSON)
        XCTAssertEqual((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String, "passkey")
        let listed = try await auth.listPasskeys(idToken: signedIn.idToken)
        XCTAssertEqual(listed.map(\.credentialID), [authenticator.credentialIDText])
        XCTAssertNotNil(listed.first?.lastUsedAt, "the sign-in is recorded")
        let user = try await auth.user(uid: phone.user.uid)
        XCTAssertEqual(user.passkeys, listed, "the account shows its passkeys")

        // The same assertion again: its challenge is used up.
        let replayed = await reason { _ = try await auth.finishPasskeySignIn(credential: assertion) }
        XCTAssertEqual(replayed, "wrongChallenge")
        // A page of another origin.
        let foreign = KitAuthenticator(rpID: rpID, origin: "https://evil.example.net")
        let wrongOrigin = await reason {
            _ = try await auth.finishPasskeyEnrollment(
                idToken: signedIn.idToken,
                credential: try foreign.register(try await auth.startPasskeyEnrollment(idToken: signedIn.idToken)))
        }
        XCTAssertEqual(wrongOrigin, "wrongOrigin")

        // Removed, the passkey signs no one in.
        try await auth.deletePasskey(idToken: signedIn.idToken, credentialID: authenticator.credentialIDText)
        let remaining = try await auth.listPasskeys(idToken: signedIn.idToken)
        XCTAssertEqual(remaining, [])
        let removed = await reason {
            _ = try await auth.finishPasskeySignIn(
                credential: try authenticator.assert(try await auth.startPasskeySignIn()))
        }
        XCTAssertEqual(removed, "unknownCredential")
    }

    func testAUserWithASecondFactorGetsItsChallengeAndBadTextIsNamed() async throws {
        let auth = try openWithPasskeys(), phone = try await signIn(auth)
        let authenticator = KitAuthenticator(rpID: rpID, origin: origin)
        let made = try authenticator.register(try await auth.startPasskeyEnrollment(idToken: phone.idToken))
        let enrolled = try await auth.finishPasskeyEnrollment(idToken: phone.idToken, credential: made)
        XCTAssertEqual(enrolled.passkey.name, "Passkey", "the default name")
        let factor = try await auth.startPhoneEnrollment(idToken: enrolled.signIn.idToken, phoneNumber: secondNumber)
        _ = try await auth.finishPhoneEnrollment(
            idToken: enrolled.signIn.idToken,
            credential: try PhoneAuth.credential(verificationID: factor.verificationID, verificationCode: "654321"))

        let assertion = try authenticator.assert(try await auth.startPasskeySignIn(uid: phone.user.uid))
        do {
            _ = try await auth.finishPasskeySignIn(credential: assertion)
            XCTFail("a user with a second factor signed in with a passkey alone")
        } catch {
            XCTAssertEqual(error.code, .secondFactorRequired)
            let challenge = try XCTUnwrap(error.multiFactorChallenge)
            XCTAssertEqual(challenge.hints.map(\.factorId), ["phone"])
        }

        await assertThrows(.invalidArgument) { _ = try await auth.finishPasskeySignIn(credential: "{not json") }
        do {
            _ = try await auth.finishPasskeySignIn(credential: #"{"id": "AAAA", "type": "public-key"}"#)
            XCTFail("a credential without its response was taken")
        } catch {
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertTrue(error.message.contains("credential.response"), error.message)
        }
    }

    func testWithoutTheSettingPasskeysAreNotAllowed() async throws {
        let auth = try open(), phone = try await signIn(auth)
        await assertThrows(.operationNotAllowed) { _ = try await auth.startPasskeyEnrollment(idToken: phone.idToken) }
        await assertThrows(.operationNotAllowed) { _ = try await auth.startPasskeySignIn() }
    }
}
