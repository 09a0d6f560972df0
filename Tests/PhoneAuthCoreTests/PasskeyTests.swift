import XCTest
@testable import PhoneAuthCore

/// Passkeys through the engine and its store (SQLite and PostgreSQL): a user who signed in by
/// phone registers one, signs in with it again without a code, and each refusal.
final class PasskeyTests: XCTestCase, PasskeyFixture {
    private let number = passkeyNumber

    func testAUserWhoSignedInByPhoneSignsInAgainWithAPasskeyAndNoCode() throws {
        let engine = try makeEngine()
        let (idToken, uid) = try signIn(engine)
        let authenticator = SoftwareAuthenticator()
        let passkey = try enrol(engine, idToken, authenticator)
        XCTAssertEqual(passkey.uid, uid)
        XCTAssertEqual(try engine.passkeys.passkeys(idToken: idToken, for: Caller()).map(\.name), ["Laptop"])
        let result = try assertion(engine, authenticator)
        XCTAssertEqual(result.user.uid, uid)
        XCTAssertFalse(result.isNewUser)
        XCTAssertEqual(result.providerId, "passkey")
        let claims = try engine.sessions.verifyIdToken(result.idToken, checkRevoked: true, for: Caller())
        XCTAssertEqual(claims["firebase"]?["sign_in_provider"], .string("passkey"))
        // The user's own credentials when the page names the user.
        let options = try engine.passkeys.startSignIn(uid: uid, phoneNumber: nil, for: Caller())
        XCTAssertEqual(options["allowCredentials"]?.arrayValue?.count, 1)
    }

    func testEachRefusal() throws {
        let engine = try makeEngine(maxPerUser: 1)
        let (idToken, uid) = try signIn(engine)
        let authenticator = SoftwareAuthenticator()
        try enrol(engine, idToken, authenticator)
        // A replayed assertion: the challenge is used up.
        var replayed: (authenticatorData: [UInt8], clientData: [UInt8], signature: [UInt8])?
        _ = try assertion(engine, authenticator) { replayed = $0 }
        let made = try XCTUnwrap(replayed)
        var response = PasskeyResponse(
            credentialId: Base64URL.encode(authenticator.credentialId), clientData: made.clientData)
        response.authenticatorData = made.authenticatorData
        response.signature = made.signature
        XCTAssertEqual(
            reason { _ = try engine.passkeys.finishSignIn(response: response, for: Caller()) }, "wrongChallenge")
        // A counter gone back: a cloned authenticator, refused and reported.
        let events = EventCollector()
        engine.setEventSink(events)
        authenticator.signCount = 0
        XCTAssertEqual(reason { _ = try assertion(engine, authenticator) }, "counterWentBack")
        let clone = try XCTUnwrap(events.events.first { $0["event"] == .string("passkeyCounterWentBack") })
        XCTAssertEqual(clone["uid"], .string(uid))
        XCTAssertEqual(clone["credentialId"], .string(Base64URL.encode(authenticator.credentialId)))
        XCTAssertEqual(clone["storedCount"], .int(1))
        XCTAssertEqual(clone["presentedCount"], .int(1))
        XCTAssertTrue(
            events.events.contains {
                $0["event"] == .string("signInFailed") && $0["reason"] == .string("counterWentBack")
            })
        // Another origin.
        authenticator.origin = "https://evil.example"
        XCTAssertEqual(reason { _ = try assertion(engine, authenticator) }, "wrongOrigin")
        authenticator.origin = "https://login.example.com"
        // A credential never registered, and another user's when the challenge names a user.
        XCTAssertEqual(reason { _ = try assertion(engine, SoftwareAuthenticator()) }, "unknownCredential")
        let (otherToken, _) = try signIn(engine, "+16505554321", code: "654321")
        let theirs = SoftwareAuthenticator()
        try enrol(engine, otherToken, theirs)
        XCTAssertEqual(reason { _ = try assertion(engine, theirs, uid: uid) }, "unknownCredential")
        // Removed: unknown from then on.
        try engine.passkeys.remove(
            credentialId: Base64URL.encode(theirs.credentialId), idToken: otherToken, for: Caller())
        XCTAssertEqual(reason { _ = try assertion(engine, theirs) }, "unknownCredential")
        XCTAssertEqual(
            reason {
                try engine.passkeys.remove(
                    credentialId: Base64URL.encode(authenticator.credentialId), idToken: otherToken, for: Caller())
            }, "unknownCredential", "another user's passkey")
    }

    func testAnotherTenantsPasskeyIsUnknownAndADeletedUsersPasskeysGoWithThem() throws {
        let engine = try makeEngine()
        let (status, result) = engine.call(
            "createTenant",
            params: .object([
                ("tenantId", .string("shop")), ("displayName", .string("Shop")),
                ("testPhoneNumbers", .object([(number, .string("222222"))])),
            ]))
        XCTAssertEqual(status, 0, "\(result)")
        let (idToken, uid) = try signIn(engine)
        let authenticator = SoftwareAuthenticator()
        try enrol(engine, idToken, authenticator)
        XCTAssertEqual(
            reason { _ = try assertion(engine, authenticator, tenant: try TenantID("shop")) }, "unknownCredential")
        XCTAssertEqual(engine.call("deleteUser", params: .object([("uid", .string(uid))])).status, 0)
        XCTAssertEqual(reason { _ = try assertion(engine, authenticator) }, "unknownCredential")
    }

    func testACredentialIsRegisteredOnceAndAUserHasAtMostTheLimit() throws {
        let engine = try makeEngine(maxPerUser: 1)
        let (idToken, _) = try signIn(engine)
        let (otherToken, _) = try signIn(engine, "+16505554321", code: "654321")
        let authenticator = SoftwareAuthenticator()
        try enrol(engine, idToken, authenticator)
        XCTAssertEqual(reason { try enrol(engine, otherToken, authenticator) }, "alreadyRegistered")
        XCTAssertEqual(reason { try enrol(engine, idToken, SoftwareAuthenticator()) }, "tooManyPasskeys")
    }

    func testAChallengeLivesItsMinutesAndIsPurgedAfter() throws {
        let dir = temporaryDirectory()
        let store = try Database(makeConfig(dir)).open()
        defer { store.close() }
        let now = Timestamp(milliseconds: 1_800_000_000_000)
        for (hash, expires) in [([UInt8](repeating: 1, count: 32), -1), ([UInt8](repeating: 2, count: 32), 300)] {
            _ = try store.addPasskeyChallenge(
                hash: hash, ceremony: .get, tenant: .defaultPool, uid: nil,
                expiresAt: now.adding(seconds: Int64(expires)), now: now, ipKey: nil, ipLimit: 0)
        }
        let expired = try store.takePasskeyChallenge(
            hash: [UInt8](repeating: 1, count: 32), ceremony: .get, tenant: .defaultPool, now: now)
        XCTAssertTrue(expired == nil, "expired")
        _ = try store.addPasskeyChallenge(
            hash: [UInt8](repeating: 3, count: 32), ceremony: .get, tenant: .defaultPool, uid: nil,
            expiresAt: now.adding(seconds: -1), now: now, ipKey: nil, ipLimit: 0)
        try store.purge(
            verificationsExpiredBefore: now, sessionsEndedBefore: now, codesMadeSince: now, codesExpiredBefore: now)
        XCTAssertEqual(try rowCount(dir, "passkey_challenges"), 1, "the live one is kept")
        let other = try store.takePasskeyChallenge(
            hash: [UInt8](repeating: 2, count: 32), ceremony: .create, tenant: .defaultPool, now: now)
        XCTAssertTrue(other == nil, "another ceremony's")
    }

    func testAChallengeServesItsUserInItsTenantOnly() throws {
        let engine = try makeEngine()
        XCTAssertEqual(
            engine.call(
                "createTenant",
                params: .object([("tenantId", .string("shop")), ("displayName", .string("Shop"))])
            ).status, 0)
        let (idToken, _) = try signIn(engine)
        let (otherToken, _) = try signIn(engine, "+16505554321", code: "654321")
        // Another user's enrolment challenge.
        let authenticator = SoftwareAuthenticator()
        let options = try engine.passkeys.startEnrollment(idToken: idToken, for: Caller())
        let (object, client) = authenticator.register(challenge: try challenge(options))
        var response = PasskeyResponse(credentialId: Base64URL.encode(authenticator.credentialId), clientData: client)
        response.attestationObject = object
        XCTAssertEqual(
            reason {
                _ = try engine.passkeys.finishEnrollment(
                    idToken: otherToken, response: response, name: nil, for: Caller())
            },
            "wrongChallenge")
        // A sign-in challenge of the default pool, answered in a tenant.
        try enrol(engine, idToken, authenticator)
        let started = try engine.passkeys.startSignIn(uid: nil, phoneNumber: nil, for: Caller())
        let made = authenticator.assert(challenge: try challenge(started))
        var assertion = PasskeyResponse(
            credentialId: Base64URL.encode(authenticator.credentialId), clientData: made.clientData)
        assertion.authenticatorData = made.authenticatorData
        assertion.signature = made.signature
        XCTAssertEqual(
            reason {
                _ = try engine.passkeys.finishSignIn(response: assertion, for: Caller(tenant: try TenantID("shop")))
            },
            "wrongChallenge")
    }

    func testANamedUserWithoutAPasskeyLooksLikeOneWithAndLikeNoOne() throws {
        let engine = try makeEngine()
        let (idToken, _) = try signIn(engine)
        _ = try signIn(engine, "+16505554321", code: "654321")
        func allowed(_ phone: String) throws -> [String] {
            try engine.passkeys.startSignIn(uid: nil, phoneNumber: phone, for: Caller())["allowCredentials"]?
                .arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        }
        let stranger = try allowed("+16505550000")
        XCTAssertEqual(stranger.count, 1, "a decoy for a number no one has")
        XCTAssertEqual(try allowed("+16505550000"), stranger, "the same each time")
        XCTAssertEqual(try allowed("+16505554321").count, 1, "a decoy for a user without passkeys")
        XCTAssertNotEqual(try allowed("+16505554321"), stranger)
        let authenticator = SoftwareAuthenticator()
        try enrol(engine, idToken, authenticator)
        XCTAssertEqual(try allowed(number), [Base64URL.encode(authenticator.credentialId)])
        // The user handle is not the uid (which may be longer than WebAuthn's 64 bytes).
        let options = try engine.passkeys.startEnrollment(idToken: idToken, for: Caller())
        XCTAssertEqual(options["user"]?["id"]?.stringValue.flatMap(Base64URL.decode)?.count, 32)
    }

    func testUserVerificationRequiredIsRequired() throws {
        let engine = try makeEngine(userVerification: .required)
        let (idToken, _) = try signIn(engine)
        let authenticator = SoftwareAuthenticator()
        authenticator.flags = 0x01  // present, not verified
        XCTAssertEqual(reason { try enrol(engine, idToken, authenticator) }, "userNotVerified")
        authenticator.flags = 0x05
        try enrol(engine, idToken, authenticator)
        authenticator.flags = 0x01
        XCTAssertEqual(reason { _ = try assertion(engine, authenticator) }, "userNotVerified")
    }

    func testStartsCountAgainstTheAddressAsAppChecksDo() throws {
        let dir = temporaryDirectory()
        let engine = try Engine(
            config: makeConfig(dir) {
                $0.passkeys = PasskeySettings(
                    rpId: "login.example.com", rpName: "Example", origins: ["https://login.example.com"])
                $0.abuse.appChecksPerIpPerHour = 2
            })
        let address = try ClientAddress("203.0.113.9", field: "clientIp")
        for _ in 0..<2 {
            _ = try engine.passkeys.startSignIn(uid: nil, phoneNumber: nil, for: Caller(address: address))
        }
        XCTAssertThrowsError(try engine.passkeys.startSignIn(uid: nil, phoneNumber: nil, for: Caller(address: address)))
        {
            XCTAssertEqual(($0 as? PhoneAuthError)?.detail("limit"), .string("appChecksPerIpPerHour"))
        }
        XCTAssertNoThrow(
            try engine.passkeys.startSignIn(
                uid: nil, phoneNumber: nil, for: Caller(address: try ClientAddress("198.51.100.4", field: "clientIp"))),
            "another address")
    }

    func testOffUnlessConfigured() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        XCTAssertEqual(
            reason { _ = try engine.passkeys.startSignIn(uid: nil, phoneNumber: nil, for: Caller()) },
            "operationNotAllowed")
    }
}
