import XCTest

@testable import PhoneAuthCore

/// The admin methods an operator's console calls (issue 46) through the JSON door: searchUsers,
/// listSessions and liftPumpingBlock, on SQLite and, when the suite runs against it, PostgreSQL.
final class ConsoleMethodsTests: XCTestCase {
    private func call(
        _ engine: Engine, _ method: String, _ params: [(String, JSONValue)], file: StaticString = #filePath,
        line: UInt = #line
    ) -> JSONValue {
        let (status, result) = engine.call(method, params: .object(params))
        XCTAssertEqual(status, 0, "\(method): \(result)", file: file, line: line)
        return result
    }

    /// The error code and the field it names.
    private func refusal(_ engine: Engine, _ method: String, _ params: [(String, JSONValue)]) -> (String?, String?) {
        let error = engine.call(method, params: .object(params)).result["error"]
        return (error?["code"]?.stringValue, error?["details"]?["field"]?.stringValue)
    }

    private func uids(_ result: JSONValue) -> [String] {
        result["users"]?.arrayValue?.compactMap { $0["uid"]?.stringValue } ?? []
    }

    private func search(
        _ engine: Engine, _ query: String, _ extra: [(String, JSONValue)] = [], file: StaticString = #filePath,
        line: UInt = #line
    ) -> [String] {
        uids(call(engine, "searchUsers", [("query", .string(query))] + extra, file: file, line: line))
    }

    private func createUsers(_ engine: Engine, _ users: [(uid: String, name: String?, phone: String?)]) throws {
        for user in users {
            _ = try engine.accounts.createUser(
                uid: user.uid, for: Caller(), displayName: user.name.map { try Label($0, field: "displayName") },
                phoneNumber: user.phone)
        }
    }

    // MARK: searchUsers

    func testANumberInAnotherFormatFindsThatNumberExactly() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        defer { engine.close() }
        try createUsers(engine, [("u1", "Ann", "+16505550101"), ("u2", "Bea", "+16505550102")])
        XCTAssertEqual(search(engine, "+1 (650) 555-0101"), ["u1"])
        XCTAssertEqual(search(engine, "+1 650 555 0102"), ["u2"])
        XCTAssertEqual(search(engine, "+16505550199"), [], "a number no user has")
        let user = call(engine, "searchUsers", [("query", .string("+16505550101"))])["users"]?.arrayValue?.first
        XCTAssertEqual(user, try engine.accounts.user(uid: "u1", for: Caller()).json, "as getUser shows it")
    }

    func testAUidOrTheStartOfADisplayNameIgnoringASCIICaseFindsUsersInUidOrder() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        defer { engine.close() }
        try createUsers(
            engine,
            [
                ("c3", "alison", nil), ("b2", "ALICE Smith", nil), ("alice", nil, nil), ("d4", "Bob Ali", nil),
                ("e5", "Élise", nil), ("f6", "élise", nil), ("g7", "Alic", nil),
            ])
        XCTAssertEqual(search(engine, "ali"), ["b2", "c3", "g7"], "names that start with it, not contain it")
        XCTAssertEqual(search(engine, "ALI"), ["b2", "c3", "g7"])
        XCTAssertEqual(search(engine, "alice"), ["alice", "b2"], "the uid and a name")
        XCTAssertEqual(search(engine, "Alice"), ["b2"], "a uid is matched as it is")
        XCTAssertEqual(search(engine, "alice smith"), ["b2"])
        XCTAssertEqual(search(engine, "c3"), ["c3"])
        XCTAssertEqual(search(engine, "él"), ["f6"], "beyond ASCII, case counts")
        XCTAssertEqual(search(engine, "É"), ["e5"])
        XCTAssertEqual(search(engine, "x"), [])
    }

    func testWildcardsAreTakenLiterally() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        defer { engine.close() }
        try createUsers(
            engine, [("1", "50% off", nil), ("2", "500 club", nil), ("3", "a_b", nil), ("4", "axb", nil)])
        XCTAssertEqual(search(engine, "50%"), ["1"])
        XCTAssertEqual(search(engine, "a_"), ["3"])
        XCTAssertEqual(search(engine, "%"), [])
        XCTAssertEqual(search(engine, "_"), [])
        XCTAssertEqual(search(engine, "a"), ["3", "4"])
    }

    func testResultsArePagedByUid() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        defer { engine.close() }
        try createUsers(engine, ["p5", "p2", "p4", "p1", "p3"].map { ($0, "Page " + $0, nil) } + [("q", "Other", nil)])
        var pages: [[String]] = []
        var token: JSONValue?
        repeat {
            let params: [(String, JSONValue)] =
                [("query", .string("page")), ("maxResults", .int(2))] + (token.map { [("pageToken", $0)] } ?? [])
            let page = call(engine, "searchUsers", params)
            pages.append(uids(page))
            token = page["pageToken"]
        } while token != nil && pages.count < 5
        XCTAssertEqual(pages, [["p1", "p2"], ["p3", "p4"], ["p5"]])
        XCTAssertEqual(search(engine, "page").count, 5, "20 by default")
        let (code, field) = refusal(engine, "searchUsers", [("query", .string("page")), ("pageToken", .string("!"))])
        XCTAssertEqual(code, "invalidArgument")
        XCTAssertEqual(field, "pageToken")
    }

    func testAnEmptyOrLongQueryAndAPageOver100AreRefusedByName() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        defer { engine.close() }
        for params: [(String, JSONValue)] in [
            [], [("query", .string(""))], [("query", .string(String(repeating: "é", count: 65)))],
        ] {
            let (code, field) = refusal(engine, "searchUsers", params)
            XCTAssertEqual(code, "invalidArgument", "\(params)")
            XCTAssertEqual(field, "query", "\(params)")
        }
        XCTAssertEqual(search(engine, String(repeating: "a", count: 128)), [], "128 bytes are a query")
        let (code, field) = refusal(engine, "searchUsers", [("query", .string("a")), ("maxResults", .int(101))])
        XCTAssertEqual(code, "invalidArgument")
        XCTAssertEqual(field, "maxResults")
    }

    func testAnotherTenantsUsersAreNeitherFoundNorTheirSessionsListed() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        defer { engine.close() }
        _ = call(engine, "createTenant", [("tenantId", .string("shop")), ("displayName", .string("Shop"))])
        let shop = [("tenantId", JSONValue.string("shop"))]
        _ = call(
            engine, "createUser",
            shop + [
                ("uid", .string("s1")), ("displayName", .string("Alice")), ("phoneNumber", .string("+16505550101")),
            ])
        try createUsers(engine, [("d1", "Alfred", nil)])
        XCTAssertEqual(search(engine, "al"), ["d1"])
        XCTAssertEqual(search(engine, "+16505550101"), [])
        XCTAssertEqual(search(engine, "s1"), [])
        XCTAssertEqual(search(engine, "al", shop), ["s1"])
        XCTAssertEqual(search(engine, "+1 650 555 0101", shop), ["s1"])
        XCTAssertEqual(refusal(engine, "listSessions", [("uid", .string("s1"))]).0, "userNotFound")
        XCTAssertEqual(refusal(engine, "listSessions", shop + [("uid", .string("d1"))]).0, "userNotFound")
        XCTAssertEqual(call(engine, "listSessions", shop + [("uid", .string("s1"))])["sessions"], .array([]))
    }

    func testTheSearchesReadAnIndex() throws {
        typealias Store = SQLStore<SQLiteConnection>  // the same text for both dialects
        try QueryPlans.ofNewDatabase { plans in
            let postgres = plans.postgres
            for search in [
                UserSearch.phoneNumber("+16505550101"), .uidOrName(uid: "al", nameFrom: "al", nameBefore: "am"),
                .uidOrName(uid: "\u{10FFFF}", nameFrom: "\u{10FFFF}", nameBefore: nil),
            ] {
                let (sql, values) = Store.userSearch(search, tenant: .defaultPool, afterUid: nil, limit: 20)
                let text = try plans.plan(sql, values).joined(separator: " | ")
                XCTAssertFalse(text.contains(postgres ? "Seq Scan" : "SCAN users"), "\(search): \(text)")
                if case .uidOrName = search, !postgres { XCTAssertTrue(text.contains("users_tenant_name"), text) }
            }
        }
    }

    // MARK: listSessions

    func testLiveSessionsAreListedNewestFirstAndGoAfterSignOutAndRevocation() throws {
        let clock = ManualClock()
        let engine = try Engine(config: makeConfig(temporaryDirectory()) { $0.resendAfterSeconds = 0 }, clock: clock)
        defer { engine.close() }
        let sender = CapturingSender()
        engine.setSMSSender(sender)
        func signIn() throws -> SignInResult {
            let started = try engine.verification.verifyPhoneNumber("+16505550101")
            let message = try XCTUnwrap(sender.waitForMessage(verificationId: started.verificationId))
            return try engine.signIn.signIn(
                with: PhoneCredential(verificationId: started.verificationId, verificationCode: code(in: message.body)))
        }
        let first = try signIn()
        clock.advance(seconds: 60)
        let second = try signIn()
        clock.advance(seconds: 60)
        _ = try engine.sessions.refreshIdToken(first.refreshToken, for: Caller())
        let uid = first.user.uid
        func sessions() -> [JSONValue] {
            call(engine, "listSessions", [("uid", .string(uid))])["sessions"]?.arrayValue ?? []
        }
        let listed = sessions()
        let ids = [second, first].map { RefreshToken.parse($0.refreshToken)?.sessionId }
        XCTAssertEqual(listed.map { $0["sessionId"]?.stringValue }, ids, "newest first")
        let start = Timestamp(seconds: 1_800_000_000)
        XCTAssertEqual(
            listed.last,
            .object([
                ("sessionId", .string(ids[1] ?? "")), ("provider", .string("phone")), ("secondFactor", .null),
                ("authTime", .string(start.rfc3339)), ("createdAt", .string(start.rfc3339)),
                ("lastRefreshedAt", .string(start.adding(seconds: 120).rfc3339)), ("generation", .int(1)),
            ]), "what is stored, never the secret or its hash")
        XCTAssertNil(listed.first?["lastRefreshedAt"], "never refreshed")
        try engine.sessions.signOut(refreshToken: second.refreshToken, for: Caller())
        XCTAssertEqual(sessions().map { $0["sessionId"]?.stringValue }, [ids[1]])
        _ = call(engine, "revokeRefreshTokens", [("uid", .string(uid))])
        XCTAssertEqual(sessions(), [])
        XCTAssertEqual(refusal(engine, "listSessions", [("uid", .string("nobody"))]).0, "userNotFound")
        XCTAssertEqual(refusal(engine, "listSessions", []).1, "uid")
    }

    // MARK: liftPumpingBlock

    /// A number of the prefix +1 650 555.
    private func number(_ i: Int) -> String { "+1650555" + String(String(10000 + i).suffix(4)) }

    func testLiftingABlockLetsSendsThroughAndTheNextBlockIsTheFirstAgain() throws {
        let clock = ManualClock()
        let config = makeConfig(temporaryDirectory()) {
            $0.pumping = PumpingPolicy()
            $0.resendAfterSeconds = 0
        }
        let engine = try Engine(config: config, clock: clock)
        defer { engine.close() }
        engine.setSMSSender(CapturingSender())
        for i in 0..<5 { _ = try engine.verification.verifyPhoneNumber(number(i)) }
        assertError(.quotaExceeded, reason: "suspectedPumping") {
            _ = try engine.verification.verifyPhoneNumber(number(5))
        }
        let refused = try XCTUnwrap(call(engine, "listPumpingDecisions", [])["decisions"]?.arrayValue?.first)
        clock.advance(seconds: 10)
        let scope = [("scopeKind", refused["scopeKind"] ?? .null), ("scope", refused["scope"] ?? .null)]
        XCTAssertEqual(call(engine, "liftPumpingBlock", scope)["lifted"], .bool(true))
        clock.advance(seconds: 1)  // the decisions' order is their time's
        // Its unentered codes forgiven: five more go out, and the sixth starts a first block again.
        for i in 6..<11 { XCTAssertNoThrow(try engine.verification.verifyPhoneNumber(number(i)), "send \(i)") }
        do {
            _ = try engine.verification.verifyPhoneNumber(number(11))
            XCTFail("not refused")
        } catch let error as PhoneAuthError {
            XCTAssertEqual(error.detail("retryAfterSeconds"), .int(900), "not twice as long: the strikes start over")
        }
        let decisions = call(engine, "listPumpingDecisions", [])["decisions"]?.arrayValue ?? []
        XCTAssertEqual(decisions.map { $0["action"]?.stringValue }, ["refused", "lifted", "refused"])
        let lift = decisions[1]
        XCTAssertEqual(lift["scopeKind"], .string("prefix"))
        XCTAssertEqual(lift["scope"], .string("+1650555"))
        XCTAssertEqual(lift["rule"], .string("blocked"))
        XCTAssertEqual(lift["until"], .string(Timestamp(seconds: 1_800_000_010).rfc3339), "the block ended then")
        XCTAssertEqual(lift["sent"], .int(5))
        XCTAssertEqual(lift["verified"], .int(0))
        XCTAssertEqual(lift["region"], .string("US"))
        XCTAssertEqual(lift["channel"], .string("sms"))
    }

    func testLiftingWhereNoBlockIsInForceSaysSoAndWritesNothing() throws {
        let clock = ManualClock()
        let engine = try Engine(config: makeConfig(temporaryDirectory()) { $0.pumping = PumpingPolicy() }, clock: clock)
        defer { engine.close() }
        engine.setSMSSender(CapturingSender())
        for i in 0..<6 { _ = try? engine.verification.verifyPhoneNumber(number(i)) }
        let lift: [(String, JSONValue)] = [("scopeKind", .string("prefix")), ("scope", .string("+1650555"))]
        for unblocked: [(String, JSONValue)] in [
            [("scopeKind", .string("prefix")), ("scope", .string("+1650556"))],  // never counted
            [("scopeKind", .string("country")), ("scope", .string("US"))],  // counted, never blocked
            [("scopeKind", .string("network")), ("scope", .string("+1650555"))],  // another kind's name
        ] {
            XCTAssertEqual(call(engine, "liftPumpingBlock", unblocked)["lifted"], .bool(false), "\(unblocked)")
        }
        clock.advance(seconds: 901)
        XCTAssertEqual(call(engine, "liftPumpingBlock", lift)["lifted"], .bool(false), "the block ran out")
        let decisions = call(engine, "listPumpingDecisions", [])["decisions"]?.arrayValue ?? []
        XCTAssertEqual(decisions.map { $0["action"]?.stringValue }, ["refused"])
        XCTAssertEqual(refusal(engine, "liftPumpingBlock", [("scopeKind", .string("range")), lift[1]]).1, "scopeKind")
        XCTAssertEqual(refusal(engine, "liftPumpingBlock", [lift[1]]).1, "scopeKind")
        XCTAssertEqual(refusal(engine, "liftPumpingBlock", [lift[0]]).1, "scope")
        XCTAssertEqual(refusal(engine, "liftPumpingBlock", [lift[0], ("scope", .string(""))]).0, "invalidArgument")
    }

    func testTheNameRangeEndsAtThePrefixsSuccessor() {
        XCTAssertEqual(UserSearch.successor(of: "al"), "am")
        XCTAssertEqual(UserSearch.successor(of: "a\u{D7FF}"), "a\u{E000}")
        XCTAssertEqual(UserSearch.successor(of: "a\u{10FFFF}"), "b")
        XCTAssertNil(UserSearch.successor(of: "\u{10FFFF}\u{10FFFF}"))
        XCTAssertEqual(UserSearch.asciiLowercased("ÉLise AZ"), "Élise az")
    }
}
