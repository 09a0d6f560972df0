import XCTest
@testable import PhoneAuthCore

/// A passkey as part of the account: the tokens its enrolment answers, `passkeyInfo` in each
/// dialect, export and import to another store, and the blocking hooks judging its sign-in.
final class PasskeyAccountTests: XCTestCase, PasskeyFixture {
    func testEnrolmentAnswersTheTokensOfASessionThatCarriesTheSignInOn() throws {
        let engine = try makeEngine()
        let (idToken, uid) = try signIn(engine)
        let authenticator = SoftwareAuthenticator()
        let options = try engine.passkeys.startEnrollment(idToken: idToken, for: Caller())
        let (object, client) = authenticator.register(challenge: try challenge(options))
        var response = PasskeyResponse(credentialId: Base64URL.encode(authenticator.credentialId), clientData: client)
        response.attestationObject = object
        let (passkey, tokens) = try engine.passkeys.finishEnrollment(
            idToken: idToken, response: response, name: nil, for: Caller())
        XCTAssertEqual(tokens.user.uid, uid)
        XCTAssertEqual(tokens.user.passkeys.map(\.id), [passkey.id])
        XCTAssertNotEqual(tokens.idToken, idToken)
        let claims = try engine.sessions.verifyIdToken(tokens.idToken, checkRevoked: true, for: Caller())
        XCTAssertEqual(claims["firebase"]?["sign_in_provider"], .string("phone"))
        XCTAssertEqual(try engine.sessions.refreshIdToken(tokens.refreshToken, for: Caller()).user.uid, uid)
        // The enrolling session stays valid, as after a second factor's enrolment.
        XCTAssertNoThrow(try engine.sessions.verifyIdToken(idToken, checkRevoked: true, for: Caller()))
    }

    func testPasskeyInfoInEachDialectAndAUserMovesToAnotherStoreWithItsPasskeys() throws {
        let engine = try makeEngine()
        let (idToken, uid) = try signIn(engine)
        let authenticator = SoftwareAuthenticator()
        let passkey = try enrol(engine, idToken, authenticator)
        _ = try assertion(engine, authenticator)
        let user = try engine.accounts.user(uid: uid, for: Caller())
        let info = try XCTUnwrap(user.json["passkeyInfo"]?.arrayValue?.first)
        XCTAssertEqual(info["credentialId"], .string(passkey.id))
        XCTAssertEqual(info["name"], .string("Laptop"))
        XCTAssertNotNil(info["lastUsedAt"]?.stringValue)
        XCTAssertNil(info["publicKey"])
        let toolkit = try XCTUnwrap(user.identityToolkitJSON["passkeyInfo"]?.arrayValue?.first)
        XCTAssertEqual(
            toolkit,
            .object([
                ("credentialId", .string(passkey.id)), ("name", .string(passkeyNumber)),
                ("displayName", .string("Laptop")),
            ]))
        let exported = try XCTUnwrap(
            engine.transfer.exportUsers(for: Caller(), maxResults: 10, pageToken: nil).users.first)
        XCTAssertNotNil(exported["passkeyInfo"]?.arrayValue?.first?["publicKey"])

        // Imported into another store, the user signs in there with the same authenticator,
        // whose counter carries on.
        let other = try makeEngine()
        let outcome = try other.transfer.importUsers([exported], for: Caller())
        XCTAssertEqual(outcome.imported, 1)
        XCTAssertEqual(outcome.errors.map { $0.message }, [])
        XCTAssertEqual(try assertion(other, authenticator).user.uid, uid)
        authenticator.signCount = 1
        XCTAssertEqual(reason { _ = try assertion(other, authenticator) }, "counterWentBack")
    }

    func testAnImportedPasskeyIsCheckedFieldByFieldAndNeverTakenFromAnotherUser() throws {
        let engine = try makeEngine()
        let (idToken, uid) = try signIn(engine)
        let passkey = try enrol(engine, idToken, SoftwareAuthenticator())
        let exported = try XCTUnwrap(
            engine.transfer.exportUsers(for: Caller(), maxResults: 10, pageToken: nil).users.first)
        let info = try XCTUnwrap(exported["passkeyInfo"]?.arrayValue?.first)
        func user(_ uid: String, _ passkey: JSONValue) -> JSONValue {
            .object([("localId", .string(uid)), ("passkeyInfo", .array([passkey]))])
        }
        func replacing(_ key: String, _ value: JSONValue) -> JSONValue {
            .object(info.objectPairs.map { $0.0 == key ? ($0.0, value) : $0 })
        }
        let outcome = try engine.transfer.importUsers(
            [
                user("other", info), user("bad-alg", replacing("algorithm", .int(-999))),
                user("bad-key", replacing("publicKey", .string("not base64url!"))),
                // Base64url, but not a P-256 key in libfido2's form: no sign-in could use it.
                user("not-a-key", replacing("publicKey", .string(Base64URL.encode([UInt8](repeating: 7, count: 64))))),
                .object([("localId", .string("twice")), ("passkeyInfo", .array([info, info]))]),
            ], for: Caller())
        XCTAssertEqual(outcome.imported, 0)
        XCTAssertEqual(outcome.errors.map { $0.index }, [0, 1, 2, 3, 4])
        let messages = outcome.errors.map { $0.message }
        XCTAssertTrue(messages[0].contains("Another user has the passkey"), messages[0])
        XCTAssertTrue(messages[1].contains("passkeyInfo[0].algorithm"), messages[1])
        XCTAssertTrue(messages[2].contains("passkeyInfo[0].publicKey"), messages[2])
        XCTAssertTrue(messages[3].contains("passkeyInfo[0].publicKey"), messages[3])
        XCTAssertTrue(messages[4].contains("lists a passkey twice"), messages[4])
        // Nothing of a refused user was written, and the passkey is still its owner's.
        XCTAssertThrowsError(try engine.accounts.user(uid: "other", for: Caller()))
        XCTAssertEqual(try engine.accounts.user(uid: uid, for: Caller()).passkeys.map(\.id), [passkey.id])
        // An export without passkeyInfo (Firebase's) imported over the user keeps its passkeys.
        let firebase = JSONValue.object(exported.objectPairs.filter { $0.0 != "passkeyInfo" })
        XCTAssertEqual(try engine.transfer.importUsers([firebase], for: Caller()).imported, 1)
        XCTAssertEqual(try engine.accounts.user(uid: uid, for: Caller()).passkeys.map(\.id), [passkey.id])
    }

    /// What the store does when two sign-ins race, which the service cannot order in a test: the
    /// counter moves only from the count it was read at, and a passkey removed before the
    /// session opens signs no one in.
    func testTheStoreMovesACounterOnceAndOpensNoSessionForARemovedPasskey() throws {
        let engine = try makeEngine()
        let (idToken, uid) = try signIn(engine)
        let passkey = try enrol(engine, idToken, SoftwareAuthenticator())
        let store = engine.store
        XCTAssertTrue(
            try store.usePasskey(id: passkey.id, tenant: .defaultPool, from: 0, to: 5, at: Timestamp(milliseconds: 1)))
        XCTAssertFalse(
            try store.usePasskey(id: passkey.id, tenant: .defaultPool, from: 0, to: 5, at: Timestamp(milliseconds: 2)))
        let (signIn, _) = engine.sessions.newSignIn(
            uid: uid, in: try engine.tenants.pool(for: Caller()), provider: .passkey, now: Timestamp(milliseconds: 3))
        try engine.passkeys.remove(credentialId: passkey.id, idToken: idToken, for: Caller())
        guard
            case .refused(.passkeyNotFound) = try store.signInUser(
                signIn, proved: .passkey(passkey.id), now: Timestamp(milliseconds: 3))
        else {
            return XCTFail("a removed passkey opened a session")
        }
    }

    func testTheSignInHooksJudgeAPasskeySignIn() throws {
        let engine = try makeEngine()
        let (idToken, uid) = try signIn(engine)
        let authenticator = SoftwareAuthenticator()
        try enrol(engine, idToken, authenticator)
        let hook = RecordingHook(
            answer: .object([
                (
                    "userRecord",
                    .object([
                        ("updateMask", .string("sessionClaims")), ("sessionClaims", .object([("via", .string("key"))])),
                    ])
                )
            ]))
        engine.hooks.set(.beforeSignIn, hook)
        let result = try assertion(engine, authenticator)
        let event = try XCTUnwrap(hook.events.last)
        XCTAssertEqual(event["sign_in_method"], .string("passkey"))
        XCTAssertEqual(event["sub"], .string(uid))
        let claims = try engine.sessions.verifyIdToken(result.idToken, checkRevoked: true, for: Caller())
        XCTAssertEqual(claims["via"], .string("key"))
        // A refusal refuses the sign-in.
        hook.answer = .object([
            ("error", .object([("status", .string("PERMISSION_DENIED")), ("message", .string("no"))]))
        ])
        XCTAssertEqual(reason { _ = try assertion(engine, authenticator) }, "refused")
        // A passkey removed while the hook ran signs no one in.
        hook.answer = .object([])
        hook.meanwhile = {
            try? engine.passkeys.remove(
                credentialId: Base64URL.encode(authenticator.credentialId), idToken: idToken, for: Caller())
        }
        XCTAssertEqual(reason { _ = try assertion(engine, authenticator) }, "unknownCredential")
    }
}

extension PasskeyAccountTests {
    /// A tenant on its own site: its relying party and origins in place of the engine's.
    func testATenantHasItsOwnRelyingPartyAndOrigins() throws {
        let engine = try makeEngine()
        let shop = Caller(tenant: try TenantID("shop"))
        let site: JSONValue = .object([
            ("rpId", .string("shop.example")), ("origins", .array([.string("https://shop.example")])),
        ])
        let (status, result) = engine.call(
            "createTenant",
            params: .object([
                ("tenantId", .string("shop")), ("displayName", .string("Shop")),
                ("testPhoneNumbers", .object([(passkeyNumber, .string("222222"))])), ("passkeys", site),
            ]))
        XCTAssertEqual(status, 0, "\(result)")
        XCTAssertEqual(result["tenant"]?["passkeys"]?["rpId"], .string("shop.example"))
        let started = try engine.verification.verifyPhoneNumber(passkeyNumber, for: shop)
        let idToken = try engine.signIn.signIn(
            with: PhoneCredential(verificationId: started.verificationId, verificationCode: "222222"), for: shop
        ).idToken
        let options = try engine.passkeys.startEnrollment(idToken: idToken, for: shop)
        XCTAssertEqual(options["rp"]?["id"], .string("shop.example"))
        // A passkey of the engine's site is refused in the tenant, and the tenant's is taken.
        let elsewhere = SoftwareAuthenticator(origin: "https://shop.example")
        XCTAssertEqual(reason { try enrol(engine, idToken, elsewhere, for: shop) }, "wrongRelyingParty")
        let authenticator = SoftwareAuthenticator(rpId: "shop.example", origin: "https://shop.example")
        try enrol(engine, idToken, authenticator, for: shop)
        XCTAssertEqual(
            try engine.passkeys.startSignIn(uid: nil, phoneNumber: nil, for: shop)["rpId"], .string("shop.example"))
        XCTAssertNoThrow(try assertion(engine, authenticator, tenant: try TenantID("shop")))
        // The engine's origin is not the tenant's.
        authenticator.origin = "https://login.example.com"
        XCTAssertEqual(reason { _ = try assertion(engine, authenticator, tenant: try TenantID("shop")) }, "wrongOrigin")
        // A bad setting is named.
        let (badStatus, bad) = engine.call(
            "updateTenant",
            params: .object([("tenantId", .string("shop")), ("passkeys", .object([("rpId", .string("Shop"))]))]))
        XCTAssertNotEqual(badStatus, 0)
        XCTAssertEqual(bad["error"]?["details"]?["field"], .string("passkeys.rpId"), "\(bad)")
    }
}

/// A beforeSignIn hook that keeps the events it is given, runs `meanwhile`, and gives `answer`.
private final class RecordingHook: BlockingHook, @unchecked Sendable {  // used by one test's thread
    var answer: JSONValue
    var events: [JSONValue] = []
    var meanwhile: () -> Void = {}

    init(answer: JSONValue) { self.answer = answer }

    func call(_ event: JSONValue, name: HookName) -> JSONValue? {
        events.append(event)
        meanwhile()
        return answer
    }
}
