import Glibc
import XCTest
@testable import PhoneAuthCore

/// The store itself: configuration, schema versions, transactions under contention, faults and
/// copying a deployment. Runs on the database of the run (SQLite, or PostgreSQL with
/// PHONEAUTH_TEST_DATABASE=postgres); the PostgreSQL-only tests skip on SQLite.
final class StorageTests: XCTestCase {
    let phone = "+16505551234"

    private func read(_ json: String) throws -> EngineConfig {
        try EngineConfig.read(try JSONCodec.parse(json))
    }

    func testDatabaseURLComesFromTheEnvironmentWhenNotConfigured() throws {
        setenv(EngineConfig.databaseVariable, "postgresql://u@db.example/auth", 1)
        defer { unsetenv(EngineConfig.databaseVariable) }
        XCTAssertEqual(try read(#"{}"#).database, "postgresql://u@db.example/auth")
        XCTAssertEqual(try read(#"{"database": "x.db"}"#).database, "x.db")
        let c = try read(
            #"{"postgres": {"poolSize": 8, "schema": "auth_2", "connectTimeoutSeconds": 2, "statementTimeoutMs": 700}}"#
        )
        XCTAssertEqual(
            [c.postgres.poolSize, c.postgres.connectTimeoutSeconds, c.postgres.statementTimeoutMs], [8, 2, 700])
        XCTAssertEqual(c.postgres.schema, "auth_2")
        guard case .postgres = Database(c) else { return XCTFail("a postgresql:// URI is PostgreSQL") }
        guard case .sqlite = Database(try read(#"{"database": "postgres.db"}"#)) else {
            return XCTFail("a path is SQLite")
        }
    }

    func testPostgresOptionsAreValidated() {
        for (json, key) in [
            (#"{"database": "x.db", "postgres": {"poolSize": 0}}"#, "postgres.poolSize"),
            (#"{"database": "x.db", "postgres": {"schema": "Auth"}}"#, "postgres.schema"),
            (#"{"database": "x.db", "postgres": {"schema": "a;drop"}}"#, "postgres.schema"),
            (#"{"database": "x.db", "postgres": {"schema": "1a"}}"#, "postgres.schema"),
            (#"{"database": "x.db", "postgres": {"statementTimeoutMs": 5}}"#, "postgres.statementTimeoutMs"),
            (#"{"database": "x.db", "postgres": {"pool": 2}}"#, "postgres.pool"),
        ] {
            do {
                _ = try read(json)
                XCTFail("accepted \(json)")
            } catch let error as PhoneAuthError {
                XCTAssertEqual(error.code, .invalidConfiguration, json)
                XCTAssertEqual(error.details.first { $0.0 == "key" }?.1, .string(key), json)
            } catch { XCTFail("\(error)") }
        }
    }

    /// A rekey's pending key file is written whole or not at all: a temporary file, synced,
    /// renamed into place, and the folder synced so the new name survives a power loss; nothing
    /// is left beside it, and a folder that cannot take it is an error.
    func testAPendingKeyFileIsWrittenWholeAndItsFolderSynced() throws {
        let dir = temporaryDirectory()
        let key = [UInt8](repeating: 9, count: 32)
        try MasterKey.writeKeyFile(dir + "/auth.db.key.new", key: key)
        XCTAssertEqual(try MasterKey.readKeyFile(dir + "/auth.db.key.new"), key)
        XCTAssertNotEqual(access(dir + "/auth.db.key.new.tmp-\(getpid())", F_OK), 0, "no temporary file left")
        XCTAssertTrue(MasterKey.syncFolder(of: dir + "/auth.db.key.new"))
        XCTAssertFalse(MasterKey.syncFolder(of: dir + "/no-such-folder/auth.db.key"))
        assertError(.storageError) { try MasterKey.writeKeyFile(dir + "/no-such-folder/auth.db.key.new", key: key) }
    }

    func testPostgresNeedsAGivenMasterKey() throws {
        let saved = environment(MasterKey.environmentVariable)
        unsetenv(MasterKey.environmentVariable)
        defer { if let saved { setenv(MasterKey.environmentVariable, saved, 1) } }
        var config = EngineConfig(database: "postgresql://u:pw@127.0.0.1:1/auth")
        config.masterKey = nil
        do {
            _ = try Engine(config: config)
            XCTFail("opened without a master key")
        } catch let error as PhoneAuthError {
            XCTAssertEqual(error.code, .invalidConfiguration)
            XCTAssertEqual(error.details.first { $0.0 == "key" }?.1, .string("masterKey"))
            XCTAssertTrue(error.message.contains("masterKey"), error.message)
        }
    }

    func testPasswordsNeverAppearInErrors() throws {
        let settings = PostgresSettings(
            uri: "postgresql://app:s3cr%40tPW@127.0.0.1:1/auth?sslmode=disable&password=other")
        XCTAssertEqual(settings.location, "127.0.0.1:1/auth")
        let redacted = settings.redact("s3cr%40tPW s3cr@tPW other")
        XCTAssertFalse(redacted.contains("s3cr") || redacted.contains("other"), redacted)
        XCTAssertFalse(settings.redactedURI.contains("s3cr"), settings.redactedURI)

        // Nothing listens on port 1: the connection fails at once, retryable, naming host and
        // database but not the password.
        var config = makeConfig(temporaryDirectory())
        config.database = settings.uri
        config.postgres.connectTimeoutSeconds = 2
        let started = SystemClock().now()
        do {
            _ = try Engine(config: config)
            XCTFail("connected to port 1")
        } catch let error as PhoneAuthError {
            XCTAssertEqual(error.code, .storageError)
            XCTAssertEqual(error.details.first { $0.0 == "retryable" }?.1, .bool(true))
            XCTAssertTrue(error.message.contains("127.0.0.1:1/auth"), error.message)
            XCTAssertFalse(error.message.contains("s3cr") || error.message.contains("other"), error.message)
        }
        XCTAssertLessThan(SystemClock().now().milliseconds - started.milliseconds, 2500)
    }

    func testNewerSchemaIsRefused() throws {
        let dir = temporaryDirectory()
        _ = try Engine(config: makeConfig(dir))
        let connection = try Database(makeConfig(dir)).connect()
        if connection.dialect.name == "sqlite" {
            try connection.execute("PRAGMA user_version = \(Migrations.all.count + 1)")
        } else {
            try connection.run("UPDATE schema_version SET version = version + 1")
        }
        connection.close()
        assertError(.storageError) { _ = try Engine(config: makeConfig(dir)) }
        do { _ = try Engine(config: makeConfig(dir)) } catch let error as PhoneAuthError {
            XCTAssertTrue(error.message.contains("newer PhoneAuth"), error.message)
        }
    }

    /// Migration 12 rebuilds SQLite's users table (for UNIQUE (tenant, phone)): a store of the
    /// schema before keeps its users, sessions and factors, and deleting a user still takes its
    /// sessions and factors with it.
    func testAStoreFromBeforeTenantsKeepsEverything() throws {
        try XCTSkipIf(testingPostgres, "SQLite's rebuild; PostgreSQL alters the table in place")
        let dir = temporaryDirectory()
        let config = makeConfig(dir)
        let old = try SQLiteConnection(path: config.database, synchronous: .normal)
        try old.transaction {
            for sql in Migrations.all.prefix(11) { try old.execute(sql) }
            try old.execute("PRAGMA user_version = 11")
            try old.run("INSERT INTO users (uid, phone, created_at) VALUES ('u1', '+16505551234', 1)")
            try old.run(
                "INSERT INTO sessions (uid, id, secret_hash, created_at, auth_time) VALUES ('u1', 's1', x'00', 1, 1)")
            try old.run(
                "INSERT INTO factors (uid, enrollment_id, factor_id, phone, enrolled_at) "
                    + "VALUES ('u1', 'f1', 'phone', '+16505551235', 1)")
        }
        old.close()

        let engine = try Engine(config: config)
        defer { engine.close() }
        let user = try engine.accounts.user(phoneNumber: "+16505551234")
        XCTAssertEqual(user.uid, "u1")
        XCTAssertEqual(user.factors.map(\.enrollmentId), ["f1"])
        let check = try SQLiteConnection(path: config.database, synchronous: .normal)
        defer { check.close() }
        XCTAssertEqual(try check.row("PRAGMA user_version") { $0.int(0) }, Int64(Migrations.all.count))
        XCTAssertEqual(try check.row("SELECT count(*) FROM sessions") { $0.int(0) }, 1)
        // A number is unique within its tenant only.
        XCTAssertThrowsError(
            try check.run("INSERT INTO users (uid, phone, created_at) VALUES ('u2', '+16505551234', 1)"))
        try check.run("INSERT INTO users (uid, tenant, phone, created_at) VALUES ('u3', 't1', '+16505551234', 1)")
        try engine.accounts.deleteUser(uid: "u1")
        XCTAssertEqual(try check.row("SELECT count(*) FROM sessions") { $0.int(0) }, 0)
        XCTAssertEqual(try check.row("SELECT count(*) FROM factors") { $0.int(0) }, 0)
    }

    func testMigrationsRunOnceWhateverTheNumberOfEngines() throws {
        let dir = temporaryDirectory()
        let engines = try (0..<3).map { _ in try Engine(config: makeConfig(dir)) }
        let connection = try Database(makeConfig(dir)).connect()
        defer { connection.close() }
        if connection.dialect.name == "postgresql" {
            XCTAssertEqual(
                try connection.row(
                    "SELECT count(*), max(version) FROM schema_version", [], { [$0.int(0), $0.int(1)] }),
                [1, Int64(Migrations.all.count)])
        }
        XCTAssertEqual(
            try connection.row("SELECT count(*) FROM secrets WHERE kind = 'code-hmac'", [], { $0.int(0) }), 1)
        engines.forEach { $0.close() }
    }

    /// Every send counts against the project's quota in its own transaction; with many threads
    /// (and, on PostgreSQL, a pool of connections whose serializable transactions conflict and
    /// are run again) the quota still holds exactly.
    func testQuotasHoldExactlyUnderConcurrency() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()) { $0.abuse.smsPerProjectPerDay = 20 })
        let outcomes = Lock()
        var sent = 0, refused = 0, other: [String] = []
        DispatchQueueLike.concurrentPerform(iterations: 8) { thread in
            for i in 0..<5 {
                do {
                    _ = try engine.verification.verifyPhoneNumber("+1650555\(2000 + thread * 10 + i)")
                    outcomes.withLock { sent += 1 }
                } catch let error as PhoneAuthError where error.code == .quotaExceeded {
                    outcomes.withLock { refused += 1 }
                } catch {
                    outcomes.withLock { other.append("\(error)") }
                }
            }
        }
        XCTAssertEqual(other, [])
        XCTAssertEqual(sent, 20)
        XCTAssertEqual(refused, 20)
        let statistics = engine.storageStatistics()
        XCTAssertEqual(statistics.driver, testingPostgres ? "postgresql" : "sqlite")
        XCTAssertGreaterThanOrEqual(statistics.transactions, 40)
        XCTAssertGreaterThan(statistics.roundTrips, statistics.transactions)
    }

    /// The outbox's index serves its queries, and keeping it costs a new verification no
    /// temporary table (a partial index's `IN` of three values would make SQLite build one for
    /// each insert).
    func testANewVerificationBuildsNoTemporaryTableAndTheOutboxUsesItsIndex() throws {
        try XCTSkipIf(testingPostgres, "SQLite's plans")
        let dir = temporaryDirectory()
        try Engine(config: makeConfig(dir)).close()
        let connection = try readingConnection(dir)
        defer { connection.close() }
        typealias Store = SQLStore<SQLiteConnection>
        var opcodes: [String] = []
        try connection.rows("EXPLAIN " + Store.insertVerification, Array(repeating: .null, count: 16)) {
            opcodes.append($0.text(1))
        }
        XCTAssertFalse(opcodes.contains("OpenEphemeral"), "\(opcodes)")
        var plan: [String] = []
        try connection.rows(
            "EXPLAIN QUERY PLAN SELECT min(due_at) FROM verifications WHERE \(Store.outboxStates)", []
        ) { plan.append($0.text(3)) }
        XCTAssertTrue(plan.contains { $0.contains("verifications_due") }, "\(plan)")
    }

    /// What a new number's sign-in costs the store on SQLite, statement by statement: 6 to start
    /// the verification (BEGIN, the number's state, the project's quota, the row, the quota's
    /// count, COMMIT), 1 to record the SMS sent, 7 to sign in (BEGIN, the code, the number's
    /// holder, consuming the code, the user, the session, COMMIT). More is a slower flow.
    func testANewNumbersSignInTakesFourteenStatements() throws {
        try XCTSkipIf(testingPostgres, "statements on SQLite; PostgreSQL counts pipelined exchanges")
        let sender = CapturingSender()
        let events = EventCollector()
        // The clock stands still: the delivery thread looks at the store only when woken (by
        // setting the sender), never on a timer, so only the flow's own statements are counted.
        let engine = try Engine(config: makeConfig(temporaryDirectory()), clock: ManualClock())
        engine.setEventSink(events)
        engine.setSMSSender(sender)
        // A first sign-in (of another number) makes the keys and warms the statement cache.
        let first = try engine.verification.verifyPhoneNumber("+16505557877").verificationId
        let firstSMS = try XCTUnwrap(sender.waitForMessage(to: "+16505557877"))
        _ = try engine.signIn.signIn(
            with: VerificationService.credential(verificationId: first, verificationCode: code(in: firstSMS.body)))
        XCTAssertNotNil(events.waitFor("codeSent", phone: "+16505557877"))
        // The look at the store that setting the sender asked for may have recorded that SMS and
        // read on after telling of it; another SMS, recorded on the same thread, comes after it.
        _ = try engine.verification.verifyPhoneNumber("+16505557876")
        XCTAssertNotNil(events.waitFor("codeSent", phone: "+16505557876"))
        let number = "+16505557878"
        let start = engine.storageStatistics().roundTrips
        let id = try engine.verification.verifyPhoneNumber(number).verificationId
        let sms = try XCTUnwrap(sender.waitForMessage(to: number))
        XCTAssertNotNil(events.waitFor("codeSent", phone: number))  // told once it is recorded
        XCTAssertEqual(engine.storageStatistics().roundTrips - start, 7)
        let beforeSignIn = engine.storageStatistics().roundTrips
        let result = try engine.signIn.signIn(
            with: VerificationService.credential(verificationId: id, verificationCode: code(in: sms.body)))
        XCTAssertTrue(result.isNewUser)
        XCTAssertEqual(engine.storageStatistics().roundTrips - beforeSignIn, 7)
    }

    /// Connections killed under the engine (as a server restart does) are noticed, dropped and
    /// replaced; the next calls succeed without reopening the engine.
    func testBrokenConnectionsAreReplaced() throws {
        try XCTSkipUnless(testingPostgres, "PostgreSQL only")
        let dir = temporaryDirectory()
        // An application name of its own, so that only this engine's connections are killed: make
        // test runs other suites on the same server meanwhile.
        let application = schemaName(dir)
        let engine = try Engine(
            config: makeConfig(dir) {
                $0.testPhoneNumbers = [self.phone: "123456"]
                $0.database += ($0.database.contains("?") ? "&" : "?") + "application_name=" + application
            })
        // Put several connections in the pool.
        DispatchQueueLike.concurrentPerform(iterations: 4) { _ in
            _ = try? engine.verification.verifyPhoneNumber(self.phone)
        }
        let killer = try Database(makeConfig(dir)).connect()
        defer { killer.close() }
        var pids: [Int64] = []
        try killer.rows(
            """
            SELECT pid FROM pg_stat_activity
            WHERE application_name = '\(application)' AND pid <> pg_backend_pid() AND usename = current_user
            """
        ) { pids.append($0.int(0)) }
        XCTAssertFalse(pids.isEmpty)
        let list = pids.map(String.init).joined(separator: ",")
        try killer.rows("SELECT pg_terminate_backend(pid) FROM unnest(ARRAY[\(list)]) AS pid") { _ in }
        // pg_terminate_backend only signals them: wait until they are gone.
        XCTAssertTrue(
            try eventually {
                try killer.row("SELECT count(*) FROM pg_stat_activity WHERE pid IN (\(list))", [], { $0.int(0) }) == 0
            })
        for _ in 0..<5 {
            let id = try engine.verification.verifyPhoneNumber(phone).verificationId
            XCTAssertNotNil(
                try engine.signIn.signIn(with: PhoneCredential(verificationId: id, verificationCode: "123456")).idToken)
        }
        XCTAssertGreaterThan(engine.storageStatistics().retries, 0)
    }

    /// A statement that cannot finish (here: a table locked by someone else) fails after the
    /// statement timeout, retryable, and leaves nothing half-done.
    func testStatementsTimeOut() throws {
        try XCTSkipUnless(testingPostgres, "PostgreSQL only")
        let dir = temporaryDirectory()
        let engine = try Engine(
            config: makeConfig(dir) {
                $0.postgres.statementTimeoutMs = 300; $0.testPhoneNumbers = [self.phone: "123456"]
            })
        let id = try engine.verification.verifyPhoneNumber(phone).verificationId
        let locker = try Database(makeConfig(dir)).connect()
        defer { locker.close() }
        try locker.execute("BEGIN")
        try locker.execute("LOCK TABLE users IN ACCESS EXCLUSIVE MODE")
        let started = SystemClock().now()
        do {
            _ = try engine.signIn.signIn(with: PhoneCredential(verificationId: id, verificationCode: "123456"))
            XCTFail("signed in through a locked table")
        } catch let error as PhoneAuthError {
            XCTAssertEqual(error.code, .storageError)
            XCTAssertEqual(error.details.first { $0.0 == "retryable" }?.1, .bool(true), error.message)
        }
        XCTAssertLessThan(SystemClock().now().milliseconds - started.milliseconds, 1500)
        try locker.execute("ROLLBACK")
        // The failed sign-in consumed nothing: the code still works.
        XCTAssertTrue(
            try engine.signIn.signIn(with: PhoneCredential(verificationId: id, verificationCode: "123456")).isNewUser)
    }

    /// `phoneauth copy`'s core: a SQLite deployment copied into the run's database keeps its
    /// users signed in (refresh and ID tokens), its verifications in flight and its lockouts.
    func testCopyKeepsUsersSignedIn() throws {
        let source = temporaryDirectory()
        let sourceConfig = { (c: inout EngineConfig) in
            c.database = source + "/auth.db"
            c.testPhoneNumbers = [self.phone: "123456"]
            c.abuse.maxConsecutiveFailures = 3
        }
        let clock = ManualClock()
        let old = try Engine(config: makeConfig(source, sourceConfig), clock: clock)
        let first = try old.verification.verifyPhoneNumber(phone).verificationId
        let signedIn = try old.signIn.signIn(with: PhoneCredential(verificationId: first, verificationCode: "123456"))
        let pending = try old.verification.verifyPhoneNumber(phone).verificationId
        let locked = "+16505550199"
        let sender = CapturingSender()
        old.setSMSSender(sender)
        let lockedId = try old.verification.verifyPhoneNumber(locked).verificationId
        for wrong in ["000000", "000001", "000002"] {
            _ = try? old.signIn.signIn(with: PhoneCredential(verificationId: lockedId, verificationCode: wrong))
        }
        old.close()

        let target = temporaryDirectory()
        let copied = try StoreCopy.copy(
            from: Database(makeConfig(source, sourceConfig)), to: Database(makeConfig(target)))
        XCTAssertEqual(copied.first { $0.table == "users" }?.rows, 1)
        XCTAssertEqual(copied.first { $0.table == "sessions" }?.rows, 1)
        assertError(.invalidArgument) {
            _ = try StoreCopy.copy(from: Database(makeConfig(source, sourceConfig)), to: Database(makeConfig(target)))
        }

        let moved = try Engine(
            config: makeConfig(target) {
                $0.testPhoneNumbers = [self.phone: "123456"]; $0.abuse.maxConsecutiveFailures = 3
            },
            clock: clock)
        XCTAssertEqual(
            try moved.sessions.verifyIdToken(signedIn.idToken, checkRevoked: true)["sub"], .string(signedIn.user.uid))
        let refreshed = try moved.sessions.refreshIdToken(signedIn.refreshToken)
        XCTAssertEqual(
            try moved.sessions.verifyIdToken(refreshed.idToken, checkRevoked: true)["sub"], .string(signedIn.user.uid))
        let again = try moved.signIn.signIn(with: PhoneCredential(verificationId: pending, verificationCode: "123456"))
        XCTAssertFalse(again.isNewUser)
        XCTAssertEqual(again.user.uid, signedIn.user.uid)
        assertError(.tooManyRequests) { _ = try moved.verification.verifyPhoneNumber(locked) }
    }
}
