import Glibc
import XCTest
@testable import PhoneAuthCore

/// A fresh directory for one test's database.
func temporaryDirectory() -> String {
    var template = Array("/tmp/phoneauth-test-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
}

/// How long a test waits for what the engine is certain to do: a deadline that only matters when
/// the test fails, so it is generous (a loaded machine is slow, not wrong).
let patienceMs: Int64 = 30_000

/// Waits on `lock`, which the caller holds, until `done` holds: false if it still does not after
/// `timeoutMs`. Whatever changes what `done` reads broadcasts on the lock.
func waitUntil(on lock: Lock, timeoutMs: Int64 = patienceMs, _ done: () -> Bool) -> Bool {
    let deadline = SystemClock().now().adding(milliseconds: timeoutMs)
    while !done() {
        if SystemClock().now() >= deadline { return false }
        lock.wait(milliseconds: 100)
    }
    return true
}

/// Looks at `done` every 10 ms until it holds: false if it still does not after `timeoutMs`. For
/// what the engine records in its store without telling anyone.
func eventually(timeoutMs: Int64 = patienceMs, _ done: () throws -> Bool) rethrows -> Bool {
    let deadline = SystemClock().now().adding(milliseconds: timeoutMs)
    while try !done() {
        if SystemClock().now() >= deadline { return false }
        usleep(10_000)
    }
    return true
}

/// Collects SMS and lets a test wait for them.
// @unchecked: its state is only touched under its lock (a test double).
final class CapturingSender: SMSSender, @unchecked Sendable {
    private let lock = Lock()
    private var messages: [SMSMessage] = []
    var failuresBeforeSuccess = 0
    private(set) var calls = 0

    func send(_ message: SMSMessage) -> SMSSendResult {
        lock.withLock {
            calls += 1
            if failuresBeforeSuccess > 0 { failuresBeforeSuccess -= 1; return .retryLater(DeliveryProblem(.rejected)) }
            messages.append(message)
            lock.broadcast()
            return .sent(messageId: nil)
        }
    }

    var all: [SMSMessage] { lock.withLock { messages } }

    func waitForMessage(to phone: String, timeoutMs: Int64 = patienceMs) -> SMSMessage? {
        waitForMessage(timeoutMs: timeoutMs) { $0.to == phone }
    }

    func waitForMessage(verificationId: String) -> SMSMessage? {
        waitForMessage { $0.verificationId == verificationId }
    }

    private func waitForMessage(timeoutMs: Int64 = patienceMs, where match: (SMSMessage) -> Bool) -> SMSMessage? {
        lock.withLock {
            _ = waitUntil(on: lock, timeoutMs: timeoutMs) { messages.contains(where: match) }
            return messages.last(where: match)
        }
    }

    /// Whether `count` messages have come.
    func waitForMessages(_ count: Int) -> Bool { lock.withLock { waitUntil(on: lock) { messages.count >= count } } }
}

/// Collects the engine's events and lets a test wait for one (the delivery thread tells of an
/// SMS only once its outcome is in the store).
// @unchecked: its state is only touched under its lock (a test double).
final class EventCollector: EventSink, @unchecked Sendable {
    private let lock = Lock()
    private var collected: [JSONValue] = []

    func record(_ event: JSONValue) {
        lock.withLock {
            collected.append(event)
            lock.broadcast()
        }
    }

    var events: [JSONValue] { lock.withLock { collected } }

    /// The first event named `name` (about `phone`, when given) that `match` accepts, once it has come.
    func waitFor(
        _ name: String, phone: String? = nil,
        where match: @escaping (JSONValue) -> Bool = { _ in true }
    ) -> JSONValue? {
        let masked = phone.map { JSONValue.string(PhoneNumber.mask($0)) }
        let wanted = { (e: JSONValue) in
            e["event"] == .string(name) && (masked == nil || e["phoneNumber"] == masked) && match(e)
        }
        return lock.withLock {
            _ = waitUntil(on: lock) { collected.contains(where: wanted) }
            return collected.first(where: wanted)
        }
    }
}

/// A connection that only reads the database of `dir`. (`connect()` migrates, a write that would
/// race the engine's own: a lease renewal refused as busy is retried only a third of a lease later.)
func readingConnection(_ dir: String) throws -> any SQLConnection {
    try Database(makeConfig(dir)).connectExisting()
}

/// Reads query plans of the database of `dir`, as the store's statements would run there.
struct QueryPlans {
    let connection: any SQLConnection
    let postgres: Bool

    init(_ dir: String) throws {
        connection = try readingConnection(dir)
        postgres = connection.dialect.name != "sqlite"
        // A small table: PostgreSQL's planner would scan it anyway unless told what it costs.
        if postgres { try connection.execute("SET enable_seqscan = off") }
    }

    /// The plan's lines (SQLite's EXPLAIN QUERY PLAN details, PostgreSQL's EXPLAIN).
    func plan(_ sql: String, _ values: [SQLValue]) throws -> [String] {
        var lines: [String] = []
        try connection.rows((postgres ? "EXPLAIN " : "EXPLAIN QUERY PLAN ") + sql, values) {
            lines.append($0.text(postgres ? 0 : 3))
        }
        return lines
    }

    func close() { connection.close() }

    /// Runs `body` with the plans of a new engine's database (made and migrated by opening it);
    /// the engine and the plans' connection are closed when it returns.
    static func ofNewDatabase(_ body: (QueryPlans) throws -> Void) throws {
        let dir = temporaryDirectory()
        let engine = try Engine(config: makeConfig(dir))
        defer { engine.close() }
        let plans = try QueryPlans(dir)
        defer { plans.close() }
        try body(plans)
    }
}

/// The delivery column as the store holds it: "sending" while an engine holds the row's lease,
/// "pending" once it is due for any engine (getVerificationStatus says "pending" for both).
func storedDelivery(_ dir: String, _ verificationId: String) throws -> String? {
    let connection = try readingConnection(dir)
    defer { connection.close() }
    return try connection.row("SELECT delivery FROM verifications WHERE id = ?", [.text(verificationId)]) { $0.text(0) }
}

/// The code in an SMS body: the first run of digits.
func code(in body: String) -> String {
    String(body.drop(while: { !$0.isNumber }).prefix(while: { $0.isNumber }))
}

/// Whether this run tests the PostgreSQL store (PHONEAUTH_TEST_DATABASE=postgres, with the
/// server at PHONEAUTH_TEST_POSTGRES_URL, as `make test` sets them) instead of SQLite files.
let testingPostgres = environment("PHONEAUTH_TEST_DATABASE") == "postgres"

func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

/// The configuration of an engine whose state is "in" `dir`: the SQLite file dir/auth.db, or,
/// when testing PostgreSQL, a schema of the test server named after `dir`. Engines opened on
/// one dir share their state either way.
func makeConfig(_ dir: String, _ adjust: (inout EngineConfig) -> Void = { _ in }) -> EngineConfig {
    var config = EngineConfig(database: dir + "/auth.db")
    if testingPostgres {
        config.database =
            environment("PHONEAUTH_TEST_POSTGRES_URL") ?? "postgresql://missing-PHONEAUTH_TEST_POSTGRES_URL"
        config.postgres.schema = schemaName(dir)
    }
    config.masterKey = Array(repeating: 7, count: 32)
    // The pumping defense, on by default, has tests of its own (PumpingTests, PumpingJudgeTests);
    // here it would refuse the many codes the other tests send to +1 650 555 and never enter.
    config.pumping.mode = .off
    adjust(&config)
    return config
}

/// A schema name for a test folder: "t_" and the folder's name, lower-cased, with its
/// upper-case letters marked so that two folders never share one.
func schemaName(_ dir: String) -> String {
    let name = dir.split(separator: "/").last.map(String.init) ?? dir
    return "t_"
        + name.map { $0.isUppercase ? "_" + $0.lowercased() : String($0) }.joined().filter {
            $0.isLetter || $0.isNumber || $0 == "_"
        }
}

/// Every value stored in the database of `dir` (the SQLite files' bytes, or every column of
/// every row in PostgreSQL), to look for secrets at rest.
func storedBytes(_ dir: String) throws -> [UInt8] {
    guard testingPostgres else {
        return ["auth.db", "auth.db-wal"].flatMap { readFile(dir + "/" + $0) ?? [] }
    }
    let connection = try readingConnection(dir)
    defer { connection.close() }
    var bytes: [UInt8] = []
    for table in StoreCopy.tables {
        try connection.rows("SELECT * FROM \(table)") { row in
            for i in 0..<row.columnCount {
                switch row.value(i) {
                case let .blob(b): bytes += b
                case let .text(t): bytes += Array(t.utf8)
                default: break
                }
            }
        }
    }
    return bytes
}

/// How many rows `table` of the database of `dir` has.
func rowCount(_ dir: String, _ table: String) throws -> Int64? {
    let connection = try readingConnection(dir)
    defer { connection.close() }
    return try connection.row("SELECT count(*) FROM \(table)", [], { $0.int(0) })
}

func readFile(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while case let n = fread(&buffer, 1, buffer.count, f), n > 0 { bytes += buffer.prefix(n) }
    return bytes
}

/// Whether `needle` occurs in `haystack`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return false }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
}

func assertError(
    _ code: PhoneAuthError.Code, reason: String? = nil, file: StaticString = #filePath, line: UInt = #line,
    _ body: () throws -> Void
) {
    do {
        try body()
        XCTFail("expected \(code.name), got success", file: file, line: line)
    } catch let error as PhoneAuthError {
        XCTAssertEqual(error.code.name, code.name, error.message, file: file, line: line)
        if let reason {
            XCTAssertEqual(error.details.first(where: { $0.0 == "reason" })?.1, .string(reason), file: file, line: line)
        }
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
    }
}

/// Signs in `phone` through a real SMS round trip.
func signInBySMS(_ engine: Engine, _ sender: CapturingSender, _ phone: String) throws -> SignInResult {
    let started = try engine.verification.verifyPhoneNumber(phone)
    let message = try XCTUnwrap(sender.waitForMessage(to: phone))
    XCTAssertEqual(message.verificationId, started.verificationId)
    return try engine.signIn.signIn(
        with: PhoneCredential(verificationId: started.verificationId, verificationCode: code(in: message.body)))
}

extension SMSText {
    /// The built-in texts, as an engine with no `sms` text keys sends them.
    static func builtIn() throws -> SMSText {
        try SMSText(
            appName: nil, hostTemplates: [:], originBoundDomain: nil, androidAppHash: nil,
            maxSegments: 1, codeLength: 6, codeTtlSeconds: 300)
    }
}

// Literals for the engine's input types, in tests only: a literal a test writes is known good, so
// a malformed one is a broken test, which the trap reports.
extension ClientAddress: ExpressibleByStringLiteral {
    public init(stringLiteral text: String) { try! self.init(text) }
}

extension Label: ExpressibleByStringLiteral {
    public init(stringLiteral text: String) { try! self.init(text, field: "label") }
}

extension LanguageTag: ExpressibleByStringLiteral {
    public init(stringLiteral text: String) { try! self.init(text) }
}

/// RFC 4648 base32 (no padding), as authenticator apps read a TOTP secret.
func base32Decode(_ text: String) -> [UInt8]? {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    var bytes: [UInt8] = [], buffer: UInt32 = 0, bits = 0
    for c in text {
        guard let value = alphabet.firstIndex(of: c) else { return nil }
        buffer = buffer << 5 | UInt32(value)
        bits += 5
        if bits >= 8 { bytes.append(UInt8(buffer >> UInt32(bits - 8) & 0xff)); bits -= 8 }
    }
    return bytes
}

// The services' calls with loose parameters, as the tests before `Caller` made them (the
// engine's doors build a Caller; these keep the tests about other things short). No tenant:
// the default pool, or for a call with a token, the token's.
extension VerificationService {
    func verifyPhoneNumber(
        _ phoneNumber: String?, languageCode: LanguageTag? = nil, clientIp: ClientAddress? = nil,
        appProof: AppProof? = nil, channel: Channel? = nil, tenant: TenantID? = nil
    ) throws -> VerificationStarted {
        try verifyPhoneNumber(
            phoneNumber, appProof: appProof, channel: channel,
            for: Caller(tenant: tenant, address: clientIp, language: languageCode))
    }

    func verificationStatus(_ verificationId: String, tenant: TenantID? = nil) throws -> VerificationStatus {
        try verificationStatus(verificationId, for: Caller(tenant: tenant))
    }
}

extension SignInService {
    func signIn(
        with credential: PhoneCredential, clientIp: ClientAddress? = nil, tenant: TenantID? = nil
    ) throws -> SignInResult {
        try signIn(with: credential, for: Caller(tenant: tenant, address: clientIp))
    }
    func createCustomToken(uid: String, claims: JSONValue?, tenant: TenantID? = nil) throws -> String {
        try createCustomToken(uid: uid, claims: claims, for: Caller(tenant: tenant))
    }
    func signIn(withCustomToken token: String, tenant: TenantID? = nil) throws -> SignInResult {
        try signIn(withCustomToken: token, for: Caller(tenant: tenant))
    }
}

extension MultiFactorService {
    func resolveSignIn(
        session: String?, assertion: Assertion?, clientIp: ClientAddress? = nil, tenant: TenantID? = nil
    ) throws -> SignInResult {
        try resolveSignIn(session: session, assertion: assertion, for: Caller(tenant: tenant, address: clientIp))
    }

    func verifySecondFactor(
        hint: String?, session: String?, languageCode: LanguageTag?, clientIp: ClientAddress?,
        appProof: AppProof? = nil, channel: Channel? = nil, tenant: TenantID? = nil
    ) throws -> VerificationStarted {
        try verifySecondFactor(
            hint: hint, session: session, appProof: appProof, channel: channel,
            for: Caller(tenant: tenant, address: clientIp, language: languageCode))
    }

    func startPhoneEnrollment(
        idToken: String, phoneNumber: String?, languageCode: LanguageTag?, clientIp: ClientAddress?,
        appProof: AppProof? = nil, channel: Channel? = nil, tenant: TenantID? = nil
    ) throws -> VerificationStarted {
        try startPhoneEnrollment(
            idToken: idToken, phoneNumber: phoneNumber, appProof: appProof, channel: channel,
            for: Caller(tenant: tenant, address: clientIp, language: languageCode))
    }

    func finishPhoneEnrollment(
        idToken: String, credential: PhoneCredential, displayName: Label?, clientIp: ClientAddress? = nil,
        tenant: TenantID? = nil
    ) throws -> SignInResult {
        try finishPhoneEnrollment(
            idToken: idToken, credential: credential, displayName: displayName,
            for: Caller(tenant: tenant, address: clientIp))
    }

    func startTotpEnrollment(
        idToken: String, accountName: Label?, issuer: Label?, tenant: TenantID? = nil
    ) throws -> TotpEnrollmentStarted {
        try startTotpEnrollment(idToken: idToken, accountName: accountName, issuer: issuer, for: Caller(tenant: tenant))
    }

    func finishTotpEnrollment(
        idToken: String, sessionInfo: String, code: String, displayName: Label?, tenant: TenantID? = nil
    ) throws -> SignInResult {
        try finishTotpEnrollment(
            idToken: idToken, sessionInfo: sessionInfo, code: code, displayName: displayName,
            for: Caller(tenant: tenant))
    }

    func unenroll(idToken: String, enrollmentId: String, tenant: TenantID? = nil) throws -> SignInResult {
        try unenroll(idToken: idToken, enrollmentId: enrollmentId, for: Caller(tenant: tenant))
    }
}

extension AccountService {
    func user(uid: String, in tenant: TenantID = .defaultPool) throws -> UserRecord {
        try user(uid: uid, for: Caller(tenant: tenant))
    }
    func user(phoneNumber: String, in tenant: TenantID = .defaultPool) throws -> UserRecord {
        try user(phoneNumber: phoneNumber, for: Caller(tenant: tenant))
    }
    func deleteUser(uid: String, in tenant: TenantID = .defaultPool) throws {
        try deleteUser(uid: uid, for: Caller(tenant: tenant))
    }
    func setCustomUserClaims(uid: String, in tenant: TenantID = .defaultPool, claims: JSONValue?) throws {
        try setCustomUserClaims(uid: uid, for: Caller(tenant: tenant), claims: claims)
    }
    func listUsers(
        in tenant: TenantID = .defaultPool, maxResults: Int, pageToken: String?
    ) throws -> (users: [UserRecord], nextPageToken: String?) {
        try listUsers(for: Caller(tenant: tenant), maxResults: maxResults, pageToken: pageToken)
    }
    func createUser(
        uid: String?, in tenant: TenantID = .defaultPool, disabled: Bool = false, displayName: Label? = nil,
        phoneNumber: String? = nil
    ) throws -> UserRecord {
        try createUser(
            uid: uid, for: Caller(tenant: tenant), disabled: disabled, displayName: displayName,
            phoneNumber: phoneNumber)
    }
    func updateUser(
        uid: String, in tenant: TenantID = .defaultPool, disabled: Bool? = nil, displayName: Label?? = nil,
        phoneNumber: String?? = nil, customClaims: JSONValue?? = nil
    ) throws -> UserRecord {
        try updateUser(
            uid: uid, for: Caller(tenant: tenant), disabled: disabled, displayName: displayName,
            phoneNumber: phoneNumber, customClaims: customClaims)
    }
    func link(
        idToken: String, credential: PhoneCredential, clientIp: ClientAddress? = nil, tenant: TenantID? = nil
    ) throws -> SignInResult {
        try link(idToken: idToken, credential: credential, for: Caller(tenant: tenant, address: clientIp))
    }
    func updatePhoneNumber(
        idToken: String, credential: PhoneCredential, clientIp: ClientAddress? = nil, tenant: TenantID? = nil
    ) throws -> SignInResult {
        try updatePhoneNumber(idToken: idToken, credential: credential, for: Caller(tenant: tenant, address: clientIp))
    }
    func reauthenticate(
        idToken: String, credential: PhoneCredential, clientIp: ClientAddress? = nil, tenant: TenantID? = nil
    ) throws -> SignInResult {
        try reauthenticate(idToken: idToken, credential: credential, for: Caller(tenant: tenant, address: clientIp))
    }
    func unlink(idToken: String, providerId: String, tenant: TenantID? = nil) throws -> UserRecord {
        try unlink(idToken: idToken, providerId: providerId, for: Caller(tenant: tenant))
    }
}

extension SessionService {
    func revokeRefreshTokens(uid: String, in tenant: TenantID = .defaultPool) throws {
        try revokeRefreshTokens(uid: uid, for: Caller(tenant: tenant))
    }
    func refreshIdToken(_ refreshToken: String, tenant: TenantID? = nil) throws -> SignInResult {
        try refreshIdToken(refreshToken, for: Caller(tenant: tenant))
    }
    func verifyIdToken(_ idToken: String, checkRevoked: Bool, tenant: TenantID? = nil) throws -> JSONValue {
        try verifyIdToken(idToken, checkRevoked: checkRevoked, for: Caller(tenant: tenant))
    }
    func signOut(refreshToken: String, tenant: TenantID? = nil) throws {
        try signOut(refreshToken: refreshToken, for: Caller(tenant: tenant))
    }
    func session(of idToken: String, recent: Bool, tenant: TenantID? = nil) throws -> SessionInfo {
        try session(of: idToken, recent: recent, for: Caller(tenant: tenant))
    }
}

extension AppVerificationService {
    func verifyClient(
        appToken: String?, tokenType: String?, clientIp: ClientAddress? = nil
    ) throws -> (
        receipt: String, suggestedTimeout: Int64
    ) {
        try verifyClient(appToken: appToken, tokenType: tokenType, for: Caller(address: clientIp))
    }
    func captchaChallenge(
        callbackScheme: String, languageCode: LanguageTag?, clientIp: ClientAddress? = nil
    ) throws -> (url: String, eventId: String) {
        try captchaChallenge(callbackScheme: callbackScheme, for: Caller(address: clientIp, language: languageCode))
    }
}
