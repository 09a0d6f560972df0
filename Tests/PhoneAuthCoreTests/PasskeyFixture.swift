import XCTest
@testable import PhoneAuthCore

/// The number the passkey tests sign in with (its test code is 123456).
let passkeyNumber = "+16505551234"

/// What the passkey tests share: an engine with passkeys on, a phone sign-in, and each ceremony
/// run with a SoftwareAuthenticator.
protocol PasskeyFixture {}

extension PasskeyFixture {
    func makeEngine(
        _ dir: String = temporaryDirectory(), maxPerUser: Int = 10,
        userVerification: PasskeySettings.UserVerification = .preferred
    ) throws -> Engine {
        try Engine(
            config: makeConfig(dir) {
                $0.testPhoneNumbers = [passkeyNumber: "123456", "+16505554321": "654321"]
                $0.passkeys = PasskeySettings(
                    rpId: "login.example.com", rpName: "Example", origins: ["https://login.example.com"])
                $0.passkeys?.maxPerUser = maxPerUser
                $0.passkeys?.userVerification = userVerification
            })
    }

    /// Signs `phone` in with its test code: the session's ID token and uid.
    func signIn(_ engine: Engine, _ phone: String? = nil, code: String = "123456") throws -> (String, String) {
        let started = try engine.verification.verifyPhoneNumber(phone ?? passkeyNumber)
        let result = try engine.signIn.signIn(
            with: PhoneCredential(verificationId: started.verificationId, verificationCode: code))
        return (result.idToken, result.user.uid)
    }

    func challenge(_ options: JSONValue) throws -> [UInt8] {
        try XCTUnwrap(options["challenge"]?.stringValue.flatMap(Base64URL.decode))
    }

    /// Registers a passkey for the user of `idToken` with `authenticator`.
    @discardableResult
    func enrol(
        _ engine: Engine, _ idToken: String, _ authenticator: SoftwareAuthenticator, for caller: Caller = Caller()
    ) throws -> Passkey {
        let options = try engine.passkeys.startEnrollment(idToken: idToken, for: caller)
        let (object, client) = authenticator.register(challenge: try challenge(options))
        var response = PasskeyResponse(
            credentialId: Base64URL.encode(authenticator.credentialId), clientData: client)
        response.attestationObject = object
        return try engine.passkeys.finishEnrollment(
            idToken: idToken, response: response, name: try Label("Laptop", field: "name"), for: caller
        ).0
    }

    /// Signs in with `authenticator`'s passkey (after a challenge for `uid`, when given).
    func assertion(
        _ engine: Engine, _ authenticator: SoftwareAuthenticator, uid: String? = nil, tenant: TenantID? = nil,
        replay: ((authenticatorData: [UInt8], clientData: [UInt8], signature: [UInt8])) -> Void = { _ in }
    ) throws -> SignInResult {
        let options = try engine.passkeys.startSignIn(uid: uid, phoneNumber: nil, for: Caller(tenant: tenant))
        let made = authenticator.assert(challenge: try challenge(options))
        replay(made)
        var response = PasskeyResponse(
            credentialId: Base64URL.encode(authenticator.credentialId), clientData: made.clientData)
        response.authenticatorData = made.authenticatorData
        response.signature = made.signature
        return try engine.passkeys.finishSignIn(response: response, for: Caller(tenant: tenant))
    }

    func reason(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as PhoneAuthError { return error.detail("reason")?.stringValue ?? error.code.rawValue } catch
        {
            return "\(error)"
        }
    }
}
