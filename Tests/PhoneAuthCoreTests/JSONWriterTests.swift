import CJansson
import Glibc
import XCTest

@testable import PhoneAuthCore

/// JSONWriter is held to jansson's own writer: for thousands of generated values, the text is
/// byte for byte what json_dumps(JSON_COMPACT | JSON_ENCODE_ANY) writes for jansson's tree of the
/// same value (what the library hands across the C ABI).
final class JSONWriterTests: XCTestCase {
    func testGeneratedValuesAreWrittenAsJanssonWritesThem() {
        var random = SeededGenerator(seed: 0x5EED_4A50)
        for round in 0..<3000 {
            let value = Self.value(depth: 0, random: &random)
            let expected = Self.janssonText(of: value)
            XCTAssertEqual(JSONWriter.text(of: value), expected, "value \(round): \(value)")
        }
    }

    func testEscapesAndNumbersByExample() {
        let cases: [(JSONValue, String)] = [
            (
                .string("a\"b\\c/d\u{1}\u{1F}\u{7F}\u{8}\u{C}\n\r\t\0é😀"),
                #""a\"b\\c/d\u0001\u001F\#u{7F}\b\f\n\r\t\u0000é😀""#
            ),
            (.int(.min), "-9223372036854775808"), (.int(.max), "9223372036854775807"), (.int(0), "0"),
            (.double(1), "1.0"), (.double(-0.0), "-0.0"), (.double(0.1), "0.10000000000000001"),
            (.double(1e20), "1e20"), (.double(1e-5), "1.0000000000000001e-5"), (.double(-2.5e-300), "-2.5e-300"),
            (.array([.double(.nan), .int(1), .double(.infinity)]), "[1]"),
            (.object([("a", .int(1)), ("b", .double(-.infinity)), ("a", .int(2))]), #"{"a":2}"#),
            (.object([]), "{}"), (.array([]), "[]"), (.null, "null"), (.bool(false), "false"),
        ]
        for (value, text) in cases {
            XCTAssertEqual(JSONWriter.text(of: value), text)
            XCTAssertEqual(Self.janssonText(of: value), text, "the example itself is jansson's text")
        }
        XCTAssertNil(JSONWriter.text(of: .double(.nan)))
        XCTAssertNil(JSONWriter.text(of: .double(.infinity)))
        XCTAssertEqual(JSONCodec.serialize(.double(.nan)), "null")
    }

    /// Every ASCII character and a non-ASCII one at every place of the eight-byte words the writer
    /// scans a text in.
    func testEachCharacterAtEachPlace() {
        for scalar in (0..<128).map({ Unicode.Scalar(UInt8($0)) }) + ["é"] {
            for place in 0..<17 {
                let text =
                    String(repeating: "a", count: place) + String(scalar) + String(repeating: "b", count: 19 - place)
                XCTAssertEqual(JSONWriter.text(of: .string(text)), Self.janssonText(of: .string(text)), "\(place)")
            }
        }
    }

    /// A long text grows the buffer many times over.
    func testLongTextIsWhole() throws {
        let long = String(repeating: "x\"é", count: 50_000)
        let value = JSONValue.array(Array(repeating: .string(long), count: 4))
        XCTAssertEqual(JSONWriter.text(of: value), Self.janssonText(of: value))
        XCTAssertEqual(try JSONCodec.parse(XCTUnwrap(JSONWriter.text(of: value))), value)
    }

    /// serializeToCString writes into a 4 KiB buffer on the stack first: texts one byte either
    /// side of it and as long as it are whole, and are json_dumps's own text of the same tree.
    func testTextsAroundTheStackBufferAreJanssonsDumps() throws {
        for length in 4094...4098 {
            let value = JSONValue.object([("t", .string(String(repeating: "a", count: length - 8)))])
            let tree = try XCTUnwrap(JSONCodec.make(value))
            defer { json_decref(tree) }
            let dumped = try XCTUnwrap(json_dumps(tree, Int(JSON_COMPACT | JSON_ENCODE_ANY)))
            defer { free(dumped) }
            let text = try XCTUnwrap(Self.janssonText(of: value))
            XCTAssertEqual(text.utf8.count, length)
            XCTAssertEqual(text, String(cString: dumped))
        }
    }

    // MARK: - jansson's writer, the reference

    /// What the library hands across the C ABI for the value: jansson's text of its tree.
    private static func janssonText(of value: JSONValue) -> String? {
        guard let text = JSONCodec.serializeToCString(value) else { return nil }
        defer { free(text) }
        return String(cString: text)
    }

    // MARK: - Generated values

    private static let keys = [
        "a", "b", "uid", "phoneNumber", "a", "\u{0}k", "ключ", "x\"y", "longer key than fifteen",
        // Canonically equivalent, different bytes: two keys to jansson.
        "a\u{301}\u{323}", "a\u{323}\u{301}",
    ]

    private static func value(depth: Int, random: inout SeededGenerator) -> JSONValue {
        switch Int.random(in: 0..<(depth < 4 ? 9 : 6), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .int(integer(&random))
        case 3: return .double(real(&random))
        case 4, 5: return .string(string(&random))
        case 6, 7:
            return .object(
                (0..<Int.random(in: 0..<7, using: &random)).map { _ in
                    (keys.randomElement(using: &random)!, value(depth: depth + 1, random: &random))
                })
        default:
            return .array(
                (0..<Int.random(in: 0..<6, using: &random)).map { _ in value(depth: depth + 1, random: &random) })
        }
    }

    private static func integer(_ random: inout SeededGenerator) -> Int64 {
        [
            Int64.min, .max, 0, -1, Int64.random(in: -1000...1000, using: &random),
            Int64.random(in: .min ... .max, using: &random),
        ]
        .randomElement(using: &random)!
    }

    private static func real(_ random: inout SeededGenerator) -> Double {
        [
            .nan, .infinity, -.infinity, 0, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e15, 1e16, 1e17,
            Double(Int.random(in: -100...100, using: &random)), Double.random(in: -1...1, using: &random),
            Double(bitPattern: UInt64.random(in: 0 ... .max, using: &random)),
            Double.random(in: 1e-308...1e-300, using: &random) / 100,
        ].randomElement(using: &random)!
    }

    private static func string(_ random: inout SeededGenerator) -> String {
        let pieces = [
            "a", "Z", "0", " ", "\"", "\\", "/", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "\n", "\t", "\u{8}", "\u{C}",
            "\r", "é", "€", "😀", "\u{2028}", "\u{FEFF}", "abcdefghijklmnopqrstuvwxyz",
        ]
        return (0..<Int.random(in: 0..<12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }
}

/// xorshift64*: the same values on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
