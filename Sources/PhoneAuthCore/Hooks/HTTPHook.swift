/// A hook served over HTTP, called as Firebase calls a blocking function: `POST {"data": {"jwt"}}`,
/// the event signed with the engine's ID-token key (its `kid` is in the JWKS) and `aud` = the URL,
/// so a function can verify it against the engine's JWKS. A 200 carries the response (a 200 with
/// `{"error": {...}}` refuses too); a 4xx carrying `{"error": {...}}` is a refusal; anything
/// else, 5xx included, a failure.
final class HTTPHook: BlockingHook {
    private let endpoint: HTTPEndpoint
    private let keys: KeyRing
    private let issuer: String
    private let clock: Clock
    private let client = HTTPClient()

    /// How long the signed event is good for: it is used at once.
    static let jwtLifetimeSeconds: Int64 = 300

    init(endpoint: HTTPEndpoint, keys: KeyRing, issuer: String, clock: Clock) {
        (self.endpoint, self.keys, self.issuer, self.clock) = (endpoint, keys, issuer, clock)
    }

    func call(_ event: JSONValue, name: HookName) -> JSONValue? {
        let now = clock.now()
        var claims = event.objectPairs.filter { !["iss", "aud", "iat", "exp"].contains($0.0) }
        claims += [
            ("iss", .string(issuer)), ("aud", .string(endpoint.baseUrl)), ("iat", .int(now.seconds)),
            ("exp", .int(now.seconds + Self.jwtLifetimeSeconds)),
        ]
        guard let jwt = try? JWT.sign(claims: .object(claims), with: keys.activeSigningKey) else { return nil }
        let body = JSONCodec.serialize(.object([("data", .object([("jwt", .string(jwt))]))]))
        let request = endpoint.post(
            endpoint.baseUrl, body: Array(body.utf8),
            headers: ["Content-Type: application/json", "Accept: application/json"])
        // A 5xx is the function failing (firebase-functions answers an uncaught exception with 500
        // {"error": {"status": "INTERNAL"}}): onError decides, not a refusal.
        guard case let .answered(status, bytes, _) = client.post(request), status < 500,
            let answer = try? JSONCodec.parse(bytes: bytes), answer.isObject
        else { return nil }
        if status == 200 { return answer }
        return answer["error"]?.isObject == true ? answer : nil
    }
}
