import Crypto
import Foundation

/// A passkey authenticator in software for the Swift API's tests (P-256, attestation "none"): it
/// reads WebAuthn's options as the engine gives them (JSON text) and answers with the JSON text a
/// browser's `PublicKeyCredential.toJSON()` gives.
final class KitAuthenticator {
    let key = P256.Signing.PrivateKey()
    let credentialID = (0..<16).map { _ in UInt8.random(in: 0...255) }
    let rpID: String
    let origin: String
    private(set) var signCount: UInt32 = 0

    init(rpID: String, origin: String) {
        self.rpID = rpID
        self.origin = origin
    }

    var credentialIDText: String { Self.base64URL(credentialID) }

    /// navigator.credentials.create's answer to creation options.
    func register(_ optionsJSON: String) throws -> String {
        let client = try clientData("webauthn.create", optionsJSON)
        let attestation = Self.map([
            (Self.text("fmt"), Self.text("none")), (Self.text("attStmt"), Self.map([])),
            (Self.text("authData"), Self.bytes(authenticatorData(attested: true))),
        ])
        return credential(["clientDataJSON": client, "attestationObject": attestation])
    }

    /// navigator.credentials.get's answer to request options, the counter one more.
    func assert(_ optionsJSON: String) throws -> String {
        signCount += 1
        let client = try clientData("webauthn.get", optionsJSON)
        let data = authenticatorData(attested: false)
        let signature = try key.signature(for: data + Array(SHA256.hash(data: client))).derRepresentation
        return credential(["clientDataJSON": client, "authenticatorData": data, "signature": Array(signature)])
    }

    private func clientData(_ type: String, _ optionsJSON: String) throws -> [UInt8] {
        let options = try JSONSerialization.jsonObject(with: Data(optionsJSON.utf8)) as? [String: Any]
        guard let challenge = options?["challenge"] as? String else { throw CocoaError(.coderValueNotFound) }
        let client: [String: Any] = ["type": type, "challenge": challenge, "origin": origin, "crossOrigin": false]
        return Array(try JSONSerialization.data(withJSONObject: client))
    }

    private func authenticatorData(attested: Bool) -> [UInt8] {
        var data = Array(SHA256.hash(data: Array(rpID.utf8)))
        data.append(0x01 | 0x04 | (attested ? 0x40 : 0))  // present, verified, credential data
        data += withUnsafeBytes(of: signCount.bigEndian, Array.init)
        if attested {
            let point = Array(key.publicKey.rawRepresentation)  // x || y
            let cose = Self.map([
                (Self.int(1), Self.int(2)), (Self.int(3), Self.int(-7)), (Self.int(-1), Self.int(1)),
                (Self.int(-2), Self.bytes(Array(point[0..<32]))), (Self.int(-3), Self.bytes(Array(point[32..<64]))),
            ])
            data += [UInt8](repeating: 0, count: 16) + [0, UInt8(credentialID.count)] + credentialID + cose
        }
        return data
    }

    private func credential(_ response: [String: [UInt8]]) -> String {
        let object: [String: Any] = [
            "id": credentialIDText, "rawId": credentialIDText, "type": "public-key",
            "response": response.mapValues(Self.base64URL),
        ]
        return String(decoding: (try? JSONSerialization.data(withJSONObject: object)) ?? Data(), as: UTF8.self)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    // Enough CBOR for an attestation object and a COSE key (short lengths, as here).
    private static func head(_ major: UInt8, _ n: Int) -> [UInt8] {
        n < 24
            ? [major << 5 | UInt8(n)]
            : n < 256 ? [major << 5 | 24, UInt8(n)] : [major << 5 | 25, UInt8(n >> 8), UInt8(n & 0xff)]
    }
    private static func int(_ v: Int) -> [UInt8] { v >= 0 ? head(0, v) : head(1, -1 - v) }
    private static func bytes(_ b: [UInt8]) -> [UInt8] { head(2, b.count) + b }
    private static func text(_ s: String) -> [UInt8] { head(3, s.utf8.count) + Array(s.utf8) }
    private static func map(_ pairs: [([UInt8], [UInt8])]) -> [UInt8] {
        pairs.reduce(head(5, pairs.count)) { $0 + $1.0 + $1.1 }
    }
}
