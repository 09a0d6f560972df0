import Glibc
import XCTest

@testable import PhoneAuthCore

/// Delivery states, delivery failure reasons, and why a receipt was refused or not applied, are
/// named by their enums alone (docs/ARCHITECTURE.md, Conventions): the SQL binds them (or, where
/// an index's predicate must match, writes them from the enum), and Swift code uses the cases. A
/// raw value quoted anywhere else in the library's sources — 'sent' in SQL, "sent" in Swift —
/// fails here, unless `exemptions` says why that file may quote that word. (phoneauthd and the
/// CLI are left out: they reach the states only as the JSON results' text, where words such as
/// "none" and "pending" mean many things.)
final class DeliveryStateLiteralTests: XCTestCase {
    private static let sources =
        String(#filePath).split(separator: "/").dropLast(3).reduce("") { "\($0)/\($1)" } + "/Sources"
    private static let libraries = ["PhoneAuthCore", "PhoneAuth", "PhoneAuthKit"]

    /// Each enum, the file that names it, and its raw values.
    private static let guarded: [(file: String, words: [String])] = [
        ("PhoneAuthCore/Delivery/DeliveryState.swift", DeliveryState.allCases.map(\.rawValue)),
        ("PhoneAuthCore/Delivery/DeliveryFailureReason.swift", DeliveryFailureReason.allCases.map(\.rawValue)),
        ("PhoneAuthCore/Receipts/ReceiptRefusal.swift", ReceiptRefusal.allCases.map(\.rawValue)),
        ("PhoneAuthCore/Receipts/AppliedReceipt.swift", AppliedReceipt.Unapplied.allCases.map(\.rawValue)),
    ]

    /// Files (relative to Sources/) where one of the words, quoted, means something else; nil
    /// words: every word.
    private static let exemptions: [(file: String, words: Set<String>?, why: String)] = [
        ("PhoneAuthCore/Storage/Migrations.swift", nil, "the migrations' history is fixed: its DDL names the states"),
        (
            "PhoneAuthCore/Providers/Twilio/TwilioReceipts.swift", ["sending", "sent", "delivered", "failed"],
            "Twilio's MessageStatus and CallStatus words, read into DeliveryReceipt.Status"
        ),
        (
            "PhoneAuthCore/Providers/Vonage/VonageReceipts.swift", ["delivered", "failed", "rejected", "timeout"],
            "Vonage's status words, read into DeliveryReceipt.Status"
        ),
        (
            "PhoneAuthCore/Providers/WhatsApp/MetaReceipts.swift", ["sent", "delivered", "failed"],
            "Meta's status words, read into DeliveryReceipt.Status"
        ),
        (
            "PhoneAuthCore/Providers/Webhook/WebhookProvider.swift", ["invalidNumber"],
            "the webhook's documented answer {\"error\": \"invalidNumber\"}"
        ),
        (
            "PhoneAuthCore/Errors/ErrorCode.swift", ["expired", "malformed"],
            "ID tokens' reasons, for Firebase's message"
        ),
        ("PhoneAuthCore/Verification/VerificationService.swift", ["malformed"], "a verification ID's refusal reason"),
        ("PhoneAuthCore/SignIn/CustomTokens.swift", ["expired"], "a custom token's refusal reason"),
        ("PhoneAuthCore/Hooks/HookService.swift", ["failed"], "a hook call's outcome (hookCalled)"),
        ("PhoneAuthCore/Operations/ResultJSON.swift", ["pending"], "getStatus' count of events pending"),
        (
            "PhoneAuthCore/Verification/SQLStore+Verification.swift", ["expired"],
            "a verification's state as getVerificationStatus shows it"
        ),
        ("PhoneAuthKit/Redaction.swift", ["none"], "what a description shows for a missing value"),
        // Until the retention purge's move out of SQLStore.swift is committed (it binds them then).
        ("PhoneAuthCore/Storage/SQLStore.swift", ["pending", "sending"], "the retention purge's SQL, being moved"),
        ("PhoneAuthCore/Storage/SQLStore+Retention.swift", ["pending", "sending"], "the retention purge's SQL, moved"),
    ]

    func testNoDeliveryStateOrReasonIsQuotedOutsideItsEnum() throws {
        var found: [String] = []
        let files = try Self.libraries.flatMap {
            try Self.swiftFiles(under: Self.sources + "/" + $0, relativeTo: Self.sources.count + 1)
        }
        XCTAssertTrue(files.contains(Self.guarded[0].file), "\(files.count) files read")
        for file in files {
            let text = String(decoding: try XCTUnwrap(readFile(Self.sources + "/" + file)), as: UTF8.self)
            for (owner, words) in Self.guarded where owner != file {
                let allowed = Self.exemptions.filter { $0.file == file }
                for (line, word) in Self.quoted(words, in: text)
                where !allowed.contains(where: { $0.words?.contains(word) ?? true }) {
                    found.append("\(file):\(line): \(word)")
                }
            }
        }
        XCTAssertEqual(found, [], "bind the enum's case (SQLValue.text(_:)) or use it, instead of its text")
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
        var found: [(Int, String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.drop(while: { $0 == " " }).hasPrefix("//") { continue }
            for word in words where line.contains("'\(word)'") || line.contains("\"\(word)\"") {
                found.append((index + 1, word))
            }
        }
        return found
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
