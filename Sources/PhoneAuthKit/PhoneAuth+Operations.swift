import PhoneAuthCore

/// Operating the engine: signing keys, the store's state, moving users in and out, and lifting a
/// number's lockout. Each is the JSON method of the same name, typed.
extension PhoneAuth {
    /// The keys that verify ID tokens now: the active one, and rotated ones until they retire.
    public func signingKeys() -> [SigningKeyInfo] { engine.keyService.signingKeys().map(SigningKeyInfo.init) }

    /// Makes a new key (of `algorithm`: `ES256`, `RS256` or `EdDSA`; the configured one when nil)
    /// the active one; the old one verifies until the tokens it signed have expired.
    public func rotateSigningKey(algorithm: String? = nil) throws(PhoneAuthError) -> [SigningKeyInfo] {
        try run("rotateSigningKey") { try $0.keyService.rotateSigningKey(algorithm: algorithm) }.map(
            SigningKeyInfo.init)
    }

    /// Stops the key `kid` verifying at once (a leaked key); if it was the active one, a new key
    /// takes over.
    public func retireSigningKey(kid: String) throws(PhoneAuthError) -> [SigningKeyInfo] {
        try run("retireSigningKey") { try $0.keyService.retireSigningKey(kid: kid) }.map(SigningKeyInfo.init)
    }

    /// The store's counts (users, live sessions, SMS queued, sent and failed in the last hour) and
    /// the signing keys.
    public func status() throws(PhoneAuthError) -> EngineStatus {
        EngineStatus(try run("getStatus") { try $0.status() })
    }

    /// Ends a number's lockout and its run of wrong codes; whether it had any.
    public func unlockPhoneNumber(_ phoneNumber: String) throws(PhoneAuthError) -> Bool {
        try run("unlockPhoneNumber") { try $0.lockouts.unlockPhoneNumber(phoneNumber) }
    }

    /// One page of users in uid order, each as the JSON text of an object as Firebase's
    /// `auth:export` writes it; pass `nextPageToken` for the next page.
    public func exportUsers(
        maxResults: Int = 1000,
        pageToken: String? = nil
    ) throws(PhoneAuthError) -> (usersJSON: [String], nextPageToken: String?) {
        let page = try run("exportUsers") {
            try $0.transfer.exportUsers(for: try caller(), maxResults: maxResults, pageToken: pageToken)
        }
        return (page.users.map { JSONCodec.serialize($0) }, page.nextPageToken)
    }

    /// Imports up to ``maxImportUsers`` users, each the JSON text of an object as `auth:export`
    /// writes it; each one that cannot be imported is reported by its index, and the others are.
    public func importUsers(
        usersJSON: [String]
    ) throws(PhoneAuthError) -> (imported: Int, errors: [(index: Int, message: String)]) {
        try run("importUsers") { engine in
            try engine.transfer.importUsers(try usersJSON.map { try JSONCodec.parse($0) }, for: try caller())
        }
    }
}
