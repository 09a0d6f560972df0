import Glibc
import XCTest

@testable import PhoneAuthCore

/// States, kinds and reasons are named by their enums alone (docs/ARCHITECTURE.md, Conventions):
/// the SQL binds them (or, where an index's predicate must match, writes them from the enum), and
/// Swift code uses the cases. A raw value quoted anywhere else in the library's sources ('used' in
/// SQL, "used" in Swift) fails here, unless `exemptions` (StateLiteralExemptions.swift) says why
/// that file may quote that word. (phoneauthd and the CLI are left out: they reach the states only
/// as the JSON results' text, where words such as "none" and "pending" mean many things.)
final class StateLiteralTests: XCTestCase {
    private static let sources =
        String(#filePath).split(separator: "/").dropLast(3).reduce("") { "\($0)/\($1)" } + "/Sources"
    private static let libraries = ["PhoneAuthCore", "PhoneAuth", "PhoneAuthKit"]

    /// Each enum whose raw values are stored or reported as a state, kind or reason: its name,
    /// the file (relative to Sources/) that declares it, and its raw values.
    static let guarded: [(type: String, file: String, words: [String])] = [
        ("DeliveryState", "PhoneAuthCore/Delivery/DeliveryState.swift", words(DeliveryState.self)),
        (
            "DeliveryFailureReason", "PhoneAuthCore/Delivery/DeliveryFailureReason.swift",
            words(DeliveryFailureReason.self)
        ),
        ("ReceiptRefusal", "PhoneAuthCore/Receipts/ReceiptRefusal.swift", words(ReceiptRefusal.self)),
        ("Unapplied", "PhoneAuthCore/Receipts/AppliedReceipt.swift", words(AppliedReceipt.Unapplied.self)),
        ("VerificationState", "PhoneAuthCore/Verification/VerificationState.swift", words(VerificationState.self)),
        ("State", "PhoneAuthCore/Verification/VerificationStatus.swift", words(VerificationStatus.State.self)),
        (
            "VerificationPurpose", "PhoneAuthCore/Verification/VerificationPurpose.swift",
            words(VerificationPurpose.self)
        ),
        ("UnusableCodeReason", "PhoneAuthCore/Verification/UnusableCodeReason.swift", words(UnusableCodeReason.self)),
        ("MFASessionState", "PhoneAuthCore/MultiFactor/MFASessionState.swift", words(MFASessionState.self)),
        ("MFASessionKind", "PhoneAuthCore/MultiFactor/MFASessionKind.swift", words(MFASessionKind.self)),
        ("FactorKind", "PhoneAuthCore/MultiFactor/FactorKind.swift", words(FactorKind.self)),
        ("RevocationReason", "PhoneAuthCore/Sessions/RevocationReason.swift", words(RevocationReason.self)),
        ("Rejection", "PhoneAuthCore/Sessions/JWT.swift", words(JWT.Rejection.self)),
        ("SignInProvider", "PhoneAuthCore/SignIn/SignInProvider.swift", words(SignInProvider.self)),
        ("Call", "PhoneAuthCore/SignIn/EarlierUse.swift", words(EarlierUse.Call.self)),
        ("AppCheckState", "PhoneAuthCore/AppVerification/AppCheckState.swift", words(AppCheckState.self)),
        ("AppCheckKind", "PhoneAuthCore/AppVerification/AppCheckKind.swift", words(AppCheckKind.self)),
        ("AppCheckRefusal", "PhoneAuthCore/AppVerification/AppCheckRefusal.swift", words(AppCheckRefusal.self)),
        ("CaptchaRefusal", "PhoneAuthCore/AppVerification/CaptchaVerifier.swift", words(CaptchaRefusal.self)),
        ("Action", "PhoneAuthCore/Pumping/PumpingDecision.swift", words(PumpingDecision.Action.self)),
        ("Rule", "PhoneAuthCore/Pumping/PumpingDecision.swift", words(PumpingDecision.Rule.self)),
        ("Kind", "PhoneAuthCore/Pumping/PumpingScope.swift", words(PumpingScope.Kind.self)),
        ("PasskeyRefusal", "PhoneAuthCore/Passkeys/PasskeyRefusal.swift", words(PasskeyRefusal.self)),
    ]

    private static func words<T: CaseIterable & RawRepresentable<String>>(_: T.Type) -> [String] {
        T.allCases.map(\.rawValue)
    }

    func testNoStateKindOrReasonIsQuotedOutsideItsEnum() throws {
        // A word may be several enums' (used: a verification's, a challenge's, an app check's).
        let owners = Dictionary(Self.guarded.flatMap { e in e.words.map { ($0, [e.file]) } }, uniquingKeysWith: +)
        var found: [String] = []
        let files = try Self.libraryFiles()
        XCTAssertTrue(Self.guarded.allSatisfy { files.contains($0.file) }, "\(files.count) files read")
        for file in files {
            let allowed = Self.exemptions.filter { $0.files.contains(file) }
            for (line, word) in Self.quoted(Array(owners.keys), in: try Self.text(of: file))
            where owners[word]?.contains(where: { $0 != file }) == true
                && !allowed.contains(where: { $0.words?.contains(word) ?? true })
            {
                found.append("\(file):\(line): \(word)")
            }
        }
        XCTAssertEqual(found, [], "bind the enum's case (SQLValue.text(_:)) or use it, instead of its text")
    }

    /// Every exemption still excuses a quoted word (a stale one would excuse the next by accident).
    func testEachExemptionIsNeeded() throws {
        let everyWord = Array(Set(Self.guarded.flatMap(\.words)))
        for exemption in Self.exemptions where exemption.words != nil {
            for file in exemption.files {
                let quoted = Set(Self.quoted(everyWord, in: try Self.text(of: file)).map(\.word))
                XCTAssertEqual(
                    exemption.words?.subtracting(quoted), [], "\(file) no longer quotes these (\(exemption.why))")
            }
        }
    }

    /// Each `enum X: String` of the library is guarded, or left out for a reason (`unguarded`):
    /// a new state's enum is not forgotten.
    func testEveryStringEnumIsGuardedOrLeftOutOnPurpose() throws {
        var declared: Set<String> = []
        for file in try Self.libraryFiles() {
            for line in try Self.text(of: file).split(separator: "\n")
            where !line.drop(while: { $0 == " " }).hasPrefix("//") {
                guard let range = line.range(of: "enum "), line.contains(": String") else { continue }
                let name = line[range.upperBound...].prefix { $0.isLetter || $0.isNumber }
                if line[range.upperBound...].dropFirst(name.count).hasPrefix(": String") {
                    declared.insert("\(file) \(name)")
                }
            }
        }
        let known = Self.guarded.map { "\($0.file) \($0.type)" } + Self.unguarded.map { "\($0.file) \($0.type)" }
        XCTAssertEqual(declared.subtracting(known).sorted(), [], "guard it here, or say in `unguarded` why not")
        XCTAssertEqual(Set(known).subtracting(declared).sorted(), [], "no longer declared there")
    }

    /// The conditions written from the enum rather than bound are word for word those of the
    /// index verifications_due, which migration 13 made: so the planner uses it (StorageTests
    /// checks that it does on SQLite; here, for the queued messages the claim gives up too).
    func testTheOutboxConditionsAreTheIndexsOwn() throws {
        typealias Store = SQLStore<SQLiteConnection>
        XCTAssertEqual(Store.outboxStates, "(delivery IN ('pending', 'sending') OR delivery = 'awaiting')")
        XCTAssertTrue(Migrations.all[12].contains("WHERE \(Store.outboxStates);"), Migrations.all[12])
        try XCTSkipIf(testingPostgres, "SQLite's plans")
        let dir = temporaryDirectory()
        try Engine(config: makeConfig(dir)).close()
        let connection = try readingConnection(dir)
        defer { connection.close() }
        var plan: [String] = []
        try connection.rows(
            "EXPLAIN QUERY PLAN SELECT count(*) FROM verifications WHERE \(Store.queuedStates) AND due_at <= ?",
            [.int(0)]
        ) { plan.append($0.text(3)) }
        XCTAssertTrue(plan.contains { $0.contains("verifications_due") }, "\(plan)")
    }

    /// The scan finds a word quoted either way, in SQL or Swift, and only whole: not a longer
    /// word, nor a comment.
    func testTheScanFindsAQuotedWordAndNothingElse() {
        let text = """
            let a = "UPDATE verifications SET delivery = 'sent' WHERE id = ?"
            if state == "failed" { return }
            // a comment may say 'sent'
            let b = "sentence", c = "'unsent'", d = "failedOver"
            """
        XCTAssertEqual(
            Self.quoted(["sent", "failed"], in: text).map { "\($0.line) \($0.word)" }, ["1 sent", "2 failed"])
    }

    /// The line numbers and words of `words` quoted ('word' or "word") in `text`, comments left out.
    private static func quoted(_ words: [String], in text: String) -> [(line: Int, word: String)] {
        let forms = words.sorted().map { (word: $0, sql: "'\($0)'", swift: "\"\($0)\"") }
        var found: [(Int, String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where line.contains(where: { $0 == "'" || $0 == "\"" }) && !line.drop(while: { $0 == " " }).hasPrefix("//") {
            for form in forms where line.contains(form.sql) || line.contains(form.swift) {
                found.append((index + 1, form.word))
            }
        }
        return found
    }

    private static func text(of file: String) throws -> String {
        String(decoding: try XCTUnwrap(readFile(sources + "/" + file), file), as: UTF8.self)
    }

    /// The library's Swift files, relative to Sources/.
    private static func libraryFiles() throws -> [String] {
        try libraries.flatMap { try swiftFiles(under: sources + "/" + $0, relativeTo: sources.count + 1) }
    }

    /// The Swift files under `directory`, as paths from its `prefix`th character on, sorted.
    private static func swiftFiles(under directory: String, relativeTo prefix: Int) throws -> [String] {
        guard let dir = opendir(directory) else { throw PhoneAuthError(.internalError, "cannot open \(directory)") }
        defer { closedir(dir) }
        var files: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            let path = directory + "/" + name
            if entry.pointee.d_type == UInt8(DT_DIR) {
                files += try swiftFiles(under: path, relativeTo: prefix)
            } else if name.hasSuffix(".swift") {
                files.append(String(path.dropFirst(prefix)))
            }
        }
        return files.sorted()
    }
}
