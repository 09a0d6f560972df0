/// The authenticator data of a WebAuthn response (Web Authentication, section 6.1): the hash of
/// the relying party ID, the flags, the signature counter and, at registration, the new
/// credential (its authenticator's AAGUID, its ID and its COSE public key).
struct AuthenticatorData {
    struct Flags: OptionSet {
        let rawValue: UInt8
        /// The user touched the authenticator.
        static let userPresent = Flags(rawValue: 0x01)
        /// The authenticator checked who the user is (a PIN, a fingerprint).
        static let userVerified = Flags(rawValue: 0x04)
        /// The credential may be synced to the user's other devices, and is.
        static let backupEligible = Flags(rawValue: 0x08)
        static let backedUp = Flags(rawValue: 0x10)
        static let attestedCredential = Flags(rawValue: 0x40)
        static let extensions = Flags(rawValue: 0x80)
    }

    /// A registration's new credential.
    struct Credential {
        var aaguid: [UInt8]
        var id: [UInt8]
        /// Its COSE key's algorithm (-7 ES256, -257 RS256, -8 EdDSA).
        var algorithm: Int64
    }

    let raw: [UInt8]
    var rpIdHash: [UInt8]
    var flags: Flags
    var signCount: UInt32
    var credential: Credential?
    /// The authenticator's extension outputs (a CBOR map), when flagged.
    var extensions: CBORReader.Item?

    /// Credential IDs are at most 1023 bytes (Web Authentication, section 5.8.3).
    static let maxCredentialIdLength = 1023

    /// The data in `raw`, or nil when it is not well-formed (a credential whose key is not a
    /// COSE map with an algorithm, bytes after the end, a credential flagged but missing).
    init?(_ raw: [UInt8]) {
        guard raw.count >= 37 else { return nil }
        self.raw = raw
        rpIdHash = Array(raw[0..<32])
        flags = Flags(rawValue: raw[32])
        signCount = raw[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.attestedCredential) {
            guard raw.count >= offset + 18 else { return nil }
            let aaguid = Array(raw[offset..<offset + 16])
            let length = Int(raw[offset + 16]) << 8 | Int(raw[offset + 17])
            offset += 18
            guard length > 0, length <= Self.maxCredentialIdLength, raw.count >= offset + length else { return nil }
            let id = Array(raw[offset..<offset + length])
            var reader = CBORReader(raw, at: offset + length)
            guard let key = reader.read(), let algorithm = key[int: 3]?.int else { return nil }
            offset = reader.offset
            credential = Credential(aaguid: aaguid, id: id, algorithm: algorithm)
        }
        if flags.contains(.extensions) {
            var reader = CBORReader(raw, at: offset)
            guard let map = reader.read(), case .map = map else { return nil }
            extensions = map
            offset = reader.offset
        }
        guard offset == raw.count else { return nil }
    }
}
