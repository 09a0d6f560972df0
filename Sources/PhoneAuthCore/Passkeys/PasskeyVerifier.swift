import CFido2
import Crypto

/// Verifies WebAuthn registrations and assertions with libfido2 (`fido_cred_verify`,
/// `fido_assert_verify`): a library made for exactly this, which knows the attestation formats
/// and the three key types (ES256, RS256, EdDSA). What libfido2 leaves to its caller is checked
/// here first, so that each refusal says why: the client data (ClientData), the relying party
/// ID's hash, user presence and verification, and the signature counter.
enum PasskeyVerifier {
    /// The key algorithms accepted (COSE: ES256, RS256, EdDSA).
    static let algorithms: Set<Int64> = [Int64(COSE_ES256), Int64(COSE_RS256), Int64(COSE_EDDSA)]
    /// The attestation formats accepted: none, and packed (self, or with a certificate whose
    /// signature is checked, and whose chain is judged when the host gave roots to trust).
    static let formats: Set<String> = ["none", "packed"]

    /// A credential a registration proved.
    struct Registered: Equatable {
        var id: [UInt8]
        /// The public key as libfido2 keeps it (ES256: x and y; RS256: modulus and exponent;
        /// EdDSA: 32 bytes), to verify assertions with.
        var publicKey: [UInt8]
        var algorithm: Int64
        var signCount: UInt32
        var aaguid: [UInt8]
        var format: String
        var backupEligible: Bool
    }

    /// A credential as stored, to check an assertion against.
    struct Stored {
        var publicKey: [UInt8]
        var algorithm: Int64
        var signCount: UInt32
    }

    /// The credential `attestationObject` registers, once everything about it checks out; with
    /// `trust`, only with a packed attestation whose certificates lead to its roots at `time`.
    static func register(
        attestationObject: [UInt8], clientData: ClientData, rpId: String, userVerification: Bool,
        trust: AttestationTrust?, at time: Int64
    ) throws(PasskeyRefusal) -> Registered {
        guard let object = CBORReader.item(attestationObject), case let .text(format)? = object[text: "fmt"],
            case let .bytes(raw)? = object[text: "authData"], let statement = object.entry(.text("attStmt")),
            case .map = statement.value, let data = AuthenticatorData(raw), let credential = data.credential
        else { throw .malformed }
        try check(data, rpId: rpId, userVerification: userVerification)
        guard algorithms.contains(credential.algorithm) else { throw .unsupportedAlgorithm }
        guard formats.contains(format) else { throw .unsupportedAttestation }
        // Only the statement's own keys (none has an empty one): Swift's reader and libfido2's
        // must see the same statement.
        guard case let .map(entries) = statement.value,
            entries.allSatisfy({ [.text("alg"), .text("sig"), .text("x5c")].contains($0.key) }),
            format == "packed" || entries.isEmpty
        else { throw .malformed }
        guard let cred = fido_cred_new() else { throw .malformed }
        var handle: OpaquePointer? = cred
        defer { fido_cred_free(&handle) }
        let statementBytes = Array(attestationObject[statement.range])
        guard fido_cred_set_type(cred, Int32(credential.algorithm)) == FIDO_OK,
            fido_cred_set_rp(cred, rpId, nil) == FIDO_OK,
            fido_cred_set_clientdata_hash(cred, clientData.hash, clientData.hash.count) == FIDO_OK,
            fido_cred_set_authdata_raw(cred, raw, raw.count) == FIDO_OK,
            fido_cred_set_uv(cred, userVerification ? FIDO_OPT_TRUE : FIDO_OPT_OMIT) == FIDO_OK
        else { throw .malformed }
        if format == "packed" {
            guard fido_cred_set_fmt(cred, format) == FIDO_OK,
                fido_cred_set_attstmt(cred, statementBytes, statementBytes.count) == FIDO_OK,
                expectExtensions(of: data, in: cred)
            else { throw .malformed }
            // With a certificate, its key signed; without, the credential's own (self attestation).
            let verified = fido_cred_x5c_len(cred) > 0 ? fido_cred_verify(cred) : fido_cred_verify_self(cred)
            guard verified == FIDO_OK else { throw .badSignature }
        }
        if let trust {
            let chain: [[UInt8]] =
                if case let .array(items)? = statement.value[text: "x5c"] {
                    items.compactMap { if case let .bytes(der) = $0 { der } else { nil } }
                } else { [] }
            // The certificate judged is the one whose key libfido2 checked the signature with.
            guard format == "packed", let leaf = chain.first,
                leaf == bytes(fido_cred_x5c_ptr(cred), fido_cred_x5c_len(cred)),
                trust.trusts(chain, aaguid: credential.aaguid, at: time)
            else { throw .untrustedAttestation }
        }
        guard let publicKey = bytes(fido_cred_pubkey_ptr(cred), fido_cred_pubkey_len(cred)) else { throw .malformed }
        return Registered(
            id: credential.id, publicKey: publicKey, algorithm: credential.algorithm, signCount: data.signCount,
            aaguid: credential.aaguid, format: format, backupEligible: data.flags.contains(.backupEligible))
    }

    /// The signature counter after an assertion of `stored` that checks out.
    static func assert(
        authenticatorData raw: [UInt8], signature: [UInt8], clientData: ClientData, stored: Stored, rpId: String,
        userVerification: Bool
    ) throws(PasskeyRefusal) -> UInt32 {
        guard let data = AuthenticatorData(raw), !signature.isEmpty, signature.count <= 1024 else { throw .malformed }
        try check(data, rpId: rpId, userVerification: userVerification)
        guard let assertion = fido_assert_new() else { throw .malformed }
        var handle: OpaquePointer? = assertion
        defer { fido_assert_free(&handle) }
        guard fido_assert_set_rp(assertion, rpId) == FIDO_OK,
            fido_assert_set_clientdata_hash(assertion, clientData.hash, clientData.hash.count) == FIDO_OK,
            fido_assert_set_count(assertion, 1) == FIDO_OK,
            fido_assert_set_authdata_raw(assertion, 0, raw, raw.count) == FIDO_OK,
            fido_assert_set_sig(assertion, 0, signature, signature.count) == FIDO_OK,
            fido_assert_set_up(assertion, FIDO_OPT_TRUE) == FIDO_OK,
            fido_assert_set_uv(assertion, userVerification ? FIDO_OPT_TRUE : FIDO_OPT_OMIT) == FIDO_OK
        else { throw .malformed }
        guard try withPublicKey(stored, { fido_assert_verify(assertion, 0, Int32(stored.algorithm), $0) }) == FIDO_OK
        else { throw .badSignature }
        // Authenticators without a counter send 0 each time; one that counts must count up.
        if data.signCount != 0 || stored.signCount != 0, data.signCount <= stored.signCount {
            throw .counterWentBack
        }
        return data.signCount
    }

    /// Tells libfido2 the extensions the authenticator reported (credProtect, hmac-secret,
    /// minPinLength, credBlob): it verifies that the authenticator data holds those it was told
    /// of, and refuses any other. False for an extension value it cannot take.
    private static func expectExtensions(of data: AuthenticatorData, in cred: OpaquePointer) -> Bool {
        guard case let .map(pairs)? = data.extensions else { return true }
        // The flags first: fido_cred_set_extensions replaces them, the two setters after add theirs.
        var flags: Int32 = 0
        for (key, value, _) in pairs where value == .simple(21) {
            if key == .text("hmac-secret") { flags |= Int32(FIDO_EXT_HMAC_SECRET) }
            if key == .text("credBlob") { flags |= Int32(FIDO_EXT_CRED_BLOB) }
        }
        guard fido_cred_set_extensions(cred, flags) == FIDO_OK else { return false }
        for (key, value, _) in pairs {
            switch (key, value) {
            case (.text("credProtect"), let .unsigned(level)):
                guard level <= 3, fido_cred_set_prot(cred, Int32(level)) == FIDO_OK else { return false }
            case (.text("minPinLength"), let .unsigned(length)):
                guard length <= 63, fido_cred_set_pin_minlen(cred, Int(length)) == FIDO_OK else { return false }
            default: continue  // what libfido2 does not read, it does not compare either
            }
        }
        return true
    }

    /// What libfido2 leaves to its caller: the relying party, and the user's presence and
    /// verification as flagged.
    private static func check(_ data: AuthenticatorData, rpId: String, userVerification: Bool) throws(PasskeyRefusal) {
        guard SecureBytes.equal(data.rpIdHash, Array(SHA256.hash(data: Array(rpId.utf8)))) else {
            throw .wrongRelyingParty
        }
        guard data.flags.contains(.userPresent) else { throw .userNotPresent }
        guard !userVerification || data.flags.contains(.userVerified) else { throw .userNotVerified }
    }

    /// Whether `publicKey` is a key of `algorithm` in libfido2's form (as an import must bring).
    static func isKey(_ publicKey: [UInt8], algorithm: Int64) -> Bool {
        let stored = Stored(publicKey: publicKey, algorithm: algorithm, signCount: 0)
        return (try? withPublicKey(stored) { _ in FIDO_OK }) == FIDO_OK
    }

    /// Runs `body` with libfido2's form of the stored key.
    private static func withPublicKey(
        _ stored: Stored, _ body: (UnsafeRawPointer) -> Int32
    ) throws(PasskeyRefusal) -> Int32 {
        let key = stored.publicKey
        switch stored.algorithm {
        case Int64(COSE_ES256):
            var pk = es256_pk_new()
            defer { es256_pk_free(&pk) }
            guard let made = pk, es256_pk_from_ptr(made, key, key.count) == FIDO_OK else { throw .malformed }
            return body(UnsafeRawPointer(made))
        case Int64(COSE_RS256):
            var pk = rs256_pk_new()
            defer { rs256_pk_free(&pk) }
            guard let made = pk, rs256_pk_from_ptr(made, key, key.count) == FIDO_OK else { throw .malformed }
            return body(UnsafeRawPointer(made))
        case Int64(COSE_EDDSA):
            var pk = eddsa_pk_new()
            defer { eddsa_pk_free(&pk) }
            guard let made = pk, eddsa_pk_from_ptr(made, key, key.count) == FIDO_OK else { throw .malformed }
            return body(UnsafeRawPointer(made))
        default: throw .unsupportedAlgorithm
        }
    }

    private static func bytes(_ pointer: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8]? {
        guard let pointer, count > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }
}
