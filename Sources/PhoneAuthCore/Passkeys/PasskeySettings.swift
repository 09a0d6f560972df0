/// Passkeys after phone sign-in (configuration key `passkeys`; off unless it is given): the
/// relying party the browser binds each passkey to, the page origins allowed to use them, and
/// their limits. A tenant may have its own (its `passkeys` setting, in the same shape), in place
/// of the engine's.
package struct PasskeySettings: Sendable, Hashable {
    /// WebAuthn's `userVerification`: whether the authenticator must check who the user is.
    package enum UserVerification: String, Sendable, CaseIterable {
        case required, preferred, discouraged
    }

    /// The relying party ID: the site's registrable domain or a host under it ("example.com").
    package var rpId: String
    /// The name browsers show ("Example").
    package var rpName: String
    /// The exact origins of the pages that may create and use passkeys ("https://example.com").
    package var origins: [String]
    package var userVerification = UserVerification.preferred
    package var maxPerUser = 10
    /// How long a ceremony's challenge may be answered.
    package var challengeTtlSeconds: Int64 = 300
    /// The attestation roots the host trusts: with them, a passkey is registered only with a
    /// packed attestation whose certificates lead to one (nil: any attestation, none included).
    var attestation: AttestationTrust?

    /// Whether an assertion or registration must carry the user-verified flag.
    var requiresUserVerification: Bool { userVerification == .required }

    /// As the configuration and a tenant's settings write it (what `read` takes back).
    package var json: JSONValue {
        .object([
            ("rpId", .string(rpId)), ("rpName", .string(rpName)), ("origins", .array(origins.map { .string($0) })),
            ("userVerification", .string(userVerification.rawValue)), ("maxPerUser", .int(Int64(maxPerUser))),
            ("challengeTtlSeconds", .int(challengeTtlSeconds)),
            ("attestationRoots", attestation.map { .array($0.roots.map { .string(Base64.encode($0)) }) } ?? .null),
        ])
    }

    package static func read(_ o: ObjectReader) throws(PhoneAuthError) -> PasskeySettings {
        try o.rejectUnknown([
            "rpId", "rpName", "origins", "userVerification", "maxPerUser", "challengeTtlSeconds", "attestationRoots",
        ])
        guard let rpId = try o.string("rpId"), isHostName(rpId) else {
            throw o.refusal("rpId", "is required: the site's domain in lower case, such as \"example.com\"")
        }
        guard case let .array(items)? = o.value("origins"), (1...20).contains(items.count) else {
            throw o.refusal("origins", "must list the pages' origins, such as [\"https://\(rpId)\"] (1 to 20)")
        }
        var origins: [String] = []
        for item in items {
            guard let origin = item.stringValue, isOrigin(origin, under: rpId) else {
                throw o.refusal(
                    "origins", "must hold https origins on \(rpId) or a host under it (http only for localhost)")
            }
            origins.append(origin)
        }
        var settings = PasskeySettings(rpId: rpId, rpName: try o.string("rpName") ?? rpId, origins: origins)
        if let v = try o.string("userVerification") {
            guard let uv = UserVerification(rawValue: v) else {
                throw o.refusal("userVerification", "must be one of required, preferred, discouraged")
            }
            settings.userVerification = uv
        }
        settings.maxPerUser = Int(try o.int("maxPerUser", in: 1...100) ?? 10)
        settings.challengeTtlSeconds = try o.int("challengeTtlSeconds", in: 30...3600) ?? 300
        settings.attestation = try readRoots(o)
        return settings
    }

    /// `attestationRoots`: 1 to 20 certificates (PEM, or base64 DER); null or absent: none.
    private static func readRoots(_ o: ObjectReader) throws(PhoneAuthError) -> AttestationTrust? {
        guard let value = o.value("attestationRoots"), value != .null else { return nil }
        let refusal = o.refusal("attestationRoots", "must list 1 to 20 certificates, PEM or base64 DER")
        guard case let .array(items) = value, (1...20).contains(items.count) else { throw refusal }
        let texts = items.compactMap(\.stringValue)
        guard texts.count == items.count, texts.allSatisfy({ $0.utf8.count <= 16384 }) else { throw refusal }
        do {
            return try AttestationTrust.read(texts)
        } catch {
            throw o.refusal(
                "attestationRoots", "must hold X.509 certificates (PEM, or base64 DER); item \(error.index) is not one")
        }
    }

    /// Lower-case letters, digits, '-' and '.', as a DNS name is written (a browser lower-cases
    /// the relying party ID it hashes); at most 253 bytes.
    private static func isHostName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 253 && !text.hasPrefix(".") && !text.hasSuffix(".")
            && text.utf8.allSatisfy { (ASCII.isLetterOrDigit($0) && !(65...90).contains($0)) || $0 == 45 || $0 == 46 }
    }

    /// `https://host[:port]` where host is `rpId` or ends with `.rpId`; `http` for localhost.
    private static func isOrigin(_ origin: String, under rpId: String) -> Bool {
        let (scheme, rest): (String, Substring)
        if origin.hasPrefix("https://") {
            (scheme, rest) = ("https", origin.dropFirst(8))
        } else if origin.hasPrefix("http://") {
            (scheme, rest) = ("http", origin.dropFirst(7))
        } else {
            return false
        }
        let host = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = host.first.map(String.init), isHostName(name), host.count <= 2,
            host.count == 1 || (host[1].count <= 5 && host[1].allSatisfy(\.isNumber) && !host[1].isEmpty)
        else { return false }
        guard name == rpId || name.hasSuffix("." + rpId) else { return false }
        return scheme == "https" || name == "localhost"
    }
}
