import Crypto
import XCTest
import _CryptoExtras
@testable import PhoneAuthCore

/// WebAuthn registrations and assertions through libfido2, made by a software authenticator:
/// what checks out, and each refusal for its own reason.
final class PasskeyVerifierTests: XCTestCase {
    private let rpId = "login.example.com"
    private let origins = ["https://login.example.com"]
    private let challenge = (0..<32).map { _ in UInt8.random(in: 0...255) }

    private func register(
        _ authenticator: SoftwareAuthenticator, format: String = "none", userVerification: Bool = false
    ) throws(PasskeyRefusal) -> PasskeyVerifier.Registered {
        let (object, client) = authenticator.register(challenge: challenge, format: format)
        return try PasskeyVerifier.register(
            attestationObject: object,
            clientData: try ClientData(client, ceremony: .create, challenge: challenge, origins: origins), rpId: rpId,
            userVerification: userVerification, trust: nil, at: 0)
    }

    private func assertion(
        _ authenticator: SoftwareAuthenticator, _ registered: PasskeyVerifier.Registered, counter: UInt32? = nil,
        origin: String? = nil
    ) throws(PasskeyRefusal) -> UInt32 {
        let (data, client, signature) = authenticator.assert(challenge: challenge, origin: origin)
        return try PasskeyVerifier.assert(
            authenticatorData: data, signature: signature,
            clientData: try ClientData(client, ceremony: .get, challenge: challenge, origins: origins),
            stored: PasskeyVerifier.Stored(
                publicKey: registered.publicKey, algorithm: registered.algorithm,
                signCount: counter ?? registered.signCount),
            rpId: rpId, userVerification: false)
    }

    /// Why `body` was refused (nil: it was not).
    private func refusal(_ body: () throws -> Void) -> PasskeyRefusal? {
        do {
            try body()
            return nil
        } catch let refusal as PasskeyRefusal {
            return refusal
        } catch {
            XCTFail("\(error)")
            return nil
        }
    }

    func testAnES256AnEdDSAAndAnRS256PasskeyRegisterAndSignIn() throws {
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        for key: SoftwareAuthenticator.Key in [.p256(P256.Signing.PrivateKey()), .ed25519(.init()), .rsa(rsa)] {
            for format in ["none", "packed"] {
                let authenticator = SoftwareAuthenticator(key: key)
                let registered = try register(authenticator, format: format)
                XCTAssertEqual(registered.id, authenticator.credentialId)
                XCTAssertEqual(registered.algorithm, key.algorithm)
                XCTAssertEqual(registered.format, format)
                XCTAssertEqual(registered.aaguid, [UInt8](repeating: 0xAA, count: 16))
                XCTAssertEqual(try assertion(authenticator, registered), 1)
                XCTAssertEqual(try assertion(authenticator, registered, counter: 1), 2)
            }
        }
    }

    func testEachRefusalSaysWhy() throws {
        let authenticator = SoftwareAuthenticator()
        let registered = try register(authenticator)
        // Another authenticator's signature over the same data.
        let other = SoftwareAuthenticator()
        XCTAssertEqual(
            refusal {
                let (data, client, _) = authenticator.assert(challenge: challenge)
                let (_, _, signature) = other.assert(challenge: challenge)
                _ = try PasskeyVerifier.assert(
                    authenticatorData: data, signature: signature,
                    clientData: try ClientData(client, ceremony: .get, challenge: challenge, origins: origins),
                    stored: .init(publicKey: registered.publicKey, algorithm: -7, signCount: 0), rpId: rpId,
                    userVerification: false)
            }, .badSignature)
        // A replayed assertion, or a cloned authenticator: the counter did not go up.
        XCTAssertEqual(refusal { _ = try assertion(authenticator, registered, counter: 100) }, .counterWentBack)
        XCTAssertEqual(
            refusal { _ = try assertion(authenticator, registered, origin: "https://evil.example") }, .wrongOrigin)
        XCTAssertEqual(
            refusal {
                _ = try ClientData(
                    authenticator.clientData("webauthn.get", challenge: challenge), ceremony: .get,
                    challenge: Array(challenge.reversed()), origins: origins)
            }, .wrongChallenge)
        XCTAssertEqual(
            refusal {
                _ = try ClientData(
                    authenticator.clientData("webauthn.create", challenge: challenge), ceremony: .get,
                    challenge: challenge, origins: origins)
            }, .wrongType)
        let elsewhere = SoftwareAuthenticator(rpId: "evil.example")
        XCTAssertEqual(refusal { _ = try register(elsewhere) }, .wrongRelyingParty)
        let untouched = SoftwareAuthenticator()
        untouched.flags = 0x04
        XCTAssertEqual(refusal { _ = try register(untouched) }, .userNotPresent)
        let unverified = SoftwareAuthenticator()
        unverified.flags = 0x01
        XCTAssertNoThrow(try register(unverified))
        XCTAssertEqual(refusal { _ = try register(unverified, userVerification: true) }, .userNotVerified)
        XCTAssertEqual(refusal { _ = try register(authenticator, format: "tpm") }, .unsupportedAttestation)
    }

    func testAPackedSignatureOverOtherClientDataIsRefused() throws {
        let authenticator = SoftwareAuthenticator()
        let (object, _) = authenticator.register(challenge: challenge, format: "packed")
        // Client data that checks out, but not the data the authenticator signed.
        let other = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let client = authenticator.clientData("webauthn.create", challenge: other)
        XCTAssertEqual(
            refusal {
                _ = try PasskeyVerifier.register(
                    attestationObject: object,
                    clientData: try ClientData(client, ceremony: .create, challenge: other, origins: origins),
                    rpId: rpId, userVerification: false, trust: nil, at: 0)
            }, .badSignature)
    }

    func testAPackedRegistrationWithExtensionsIsVerified() throws {
        // credProtect, as CTAP 2.1 keys report it for resident keys: libfido2 must be told of it.
        let authenticator = SoftwareAuthenticator()
        authenticator.extensions = CBOR.map([(CBOR.text("credProtect"), CBOR.int(2))])
        XCTAssertEqual(try register(authenticator, format: "packed").format, "packed")
    }

    func testAnAuthenticatorWithoutACounterSignsInEachTime() throws {
        let authenticator = SoftwareAuthenticator()
        authenticator.counts = false
        let registered = try register(authenticator)
        XCTAssertEqual(try assertion(authenticator, registered), 0)
        XCTAssertEqual(try assertion(authenticator, registered), 0)
        // One that counted before and now sends 0 has gone back.
        XCTAssertEqual(refusal { _ = try assertion(authenticator, registered, counter: 5) }, .counterWentBack)
    }

    func testMalformedInputIsRefusedNeverACrash() {
        let truncated: [[UInt8]] = [
            [], [0xa1], [0xbf, 0xff], [0x5b] + [UInt8](repeating: 0xff, count: 8), Array(repeating: 0x81, count: 64),
        ]
        for bytes in truncated { XCTAssertNil(CBORReader.item(bytes), "\(bytes.prefix(4))") }
        XCTAssertNil(AuthenticatorData([UInt8](repeating: 0, count: 36)))
        // Flagged as holding a credential, but ending before it.
        XCTAssertNil(AuthenticatorData([UInt8](repeating: 0, count: 32) + [0x41, 0, 0, 0, 1] + [0xAA, 0xAA]))
        // Bytes after the end.
        XCTAssertNil(AuthenticatorData([UInt8](repeating: 0, count: 32) + [0x01, 0, 0, 0, 1, 0]))
        XCTAssertEqual(
            refusal {
                _ = try PasskeyVerifier.register(
                    attestationObject: [0xa0],
                    clientData: try ClientData(
                        SoftwareAuthenticator().clientData("webauthn.create", challenge: challenge), ceremony: .create,
                        challenge: challenge, origins: origins), rpId: rpId, userVerification: false, trust: nil, at: 0)
            }, .malformed)
        XCTAssertEqual(
            refusal {
                _ = try ClientData(Array("not json".utf8), ceremony: .get, challenge: challenge, origins: origins)
            },
            .malformed)
    }
}
