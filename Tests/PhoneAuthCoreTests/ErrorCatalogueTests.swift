import Glibc
import XCTest
@testable import PhoneAuthCore

/// The error catalogue (Errors/PhoneAuthError.swift) is the one list of codes: every other place that
/// names them — the C header, the Python classes, docs/API.md, PhoneAuthKit — must say the same.
final class ErrorCatalogueTests: XCTestCase {
    private static let root = String(#filePath).split(separator: "/").dropLast(3).map(String.init)
        .reduce("") { "\($0)/\($1)" }

    private func read(_ path: String) throws -> String {
        let full = Self.root + "/" + path
        guard let file = fopen(full, "r") else { throw PhoneAuthError(.internalError, "cannot open \(full)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while case let n = fread(&buffer, 1, buffer.count, file), n > 0 { bytes += buffer[0..<n] }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// (name, number) of every catalogue entry.
    private var catalogue: [String: Int32] {
        Dictionary(uniqueKeysWithValues: PhoneAuthError.Code.allCases.map { ($0.name, $0.status) })
    }

    /// Every match of `pattern`'s capture groups, in order.
    private func matches(_ pattern: String, in text: String) -> [[String]] {
        var regex = regex_t()
        guard regcomp(&regex, pattern, REG_EXTENDED | REG_NEWLINE) == 0 else { return [] }
        defer { regfree(&regex) }
        var found: [[String]] = []
        var rest = Array(text.utf8CString)
        var offset = 0
        var groups = [regmatch_t](repeating: regmatch_t(), count: 4)
        while offset < rest.count - 1 {
            let status = rest.withUnsafeBufferPointer { buffer in
                regexec(&regex, buffer.baseAddress! + offset, groups.count, &groups, offset == 0 ? 0 : REG_NOTBOL)
            }
            guard status == 0 else { break }
            found.append(
                groups.dropFirst().filter { $0.rm_so >= 0 }.map { group in
                    String(
                        decoding: rest[(offset + Int(group.rm_so))..<(offset + Int(group.rm_eo))].map {
                            UInt8(bitPattern: $0)
                        },
                        as: UTF8.self)
                })
            offset += max(1, Int(groups[0].rm_eo))
        }
        rest.removeAll()
        return found
    }

    func testNumbersAndNamesAreUnique() {
        let codes = PhoneAuthError.Code.allCases
        XCTAssertEqual(Set(codes.map(\.status)).count, codes.count, "two codes share a number")
        XCTAssertEqual(Set(codes.map(\.entry.summary)).count, codes.count, "two codes share a summary")
        for code in codes {
            XCTAssertEqual(PhoneAuthError.Code(status: code.status), code)
            XCTAssertFalse(code.entry.firebaseMessage.isEmpty, code.name)
        }
    }

    func testTheHeaderDefinesEveryNumber() throws {
        let header = try read("include/phoneauth.h")
        let defined = matches("^#define PHONEAUTH_ERR_[A-Z_]+ +([0-9]+)", in: header).map { Int32($0[0])! }
        XCTAssertEqual(Set(defined), Set(catalogue.values), "include/phoneauth.h's PHONEAUTH_ERR_* numbers")
        XCTAssertEqual(defined.count, catalogue.count, "a number defined twice in the header")
    }

    func testThePythonClassesAreTheCatalogue() throws {
        let source = try read("bindings/python/phoneauth/errors.py")
        let pairs = matches("code, status = \"([A-Za-z]+)\", ([0-9]+)", in: source)
        XCTAssertEqual(pairs.count, catalogue.count, "one Python class per code")
        XCTAssertEqual(Dictionary(pairs.map { ($0[0], Int32($0[1])!) }, uniquingKeysWith: { a, _ in a }), catalogue)
    }

    func testTheAPIDocumentListsTheCatalogue() throws {
        let document = try read("docs/API.md")
        // The "## Errors" section only: other tables have numbers too.
        let section = String(document.split(separator: "\n## ").first { $0.hasPrefix("Errors\n") } ?? "")
        let rows = matches("^\\| `([A-Za-z]+)` \\| ([0-9]+) \\|", in: section)
        XCTAssertEqual(rows.count, catalogue.count, "one row per code in docs/API.md's error table")
        XCTAssertEqual(Dictionary(rows.map { ($0[0], Int32($0[1])!) }, uniquingKeysWith: { a, _ in a }), catalogue)
    }

    func testPhoneAuthKitNamesEveryCode() throws {
        let source = try read("Sources/PhoneAuthKit/PhoneAuthError.swift")
        let names = matches("public static let ([A-Za-z]+) = Code\\(\\.([A-Za-z]+)\\)", in: source)
        XCTAssertTrue(names.allSatisfy { $0[0] == $0[1] }, "PhoneAuthKit's Code.x is the catalogue's .x")
        XCTAssertEqual(Set(names.map { $0[0] }), Set(catalogue.keys))
    }

    func testHTTPStatusesFollowTheCatalogue() {
        XCTAssertEqual(PhoneAuthError.Code.userNotFound.httpStatus(retryable: false), 404)
        XCTAssertEqual(PhoneAuthError.Code.storageError.httpStatus(retryable: true), 503)
        XCTAssertEqual(PhoneAuthError.Code.storageError.httpStatus(retryable: false), 500)
        XCTAssertEqual(
            PhoneAuthError.Code.invalidIdToken.firebase(reason: "expired", retryable: false).message, "TOKEN_EXPIRED")
        XCTAssertEqual(
            PhoneAuthError.Code.invalidUserToken.firebase(reason: "unknown", retryable: false).message,
            "INVALID_REFRESH_TOKEN")
        XCTAssertEqual(
            PhoneAuthError.Code.invalidUserToken.firebase(reason: "signedOut", retryable: false).message,
            "TOKEN_EXPIRED")
        XCTAssertEqual(PhoneAuthError.Code.storageError.firebase(reason: nil, retryable: true).status, 503)
        XCTAssertEqual(PhoneAuthError.Code.tooManyRequests.firebase(reason: nil, retryable: false).status, 429)
        XCTAssertEqual(PhoneAuthError.Code.userDisabled.firebase(reason: nil, retryable: false).status, 400)
    }
}
