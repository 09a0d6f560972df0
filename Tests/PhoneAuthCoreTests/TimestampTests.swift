import XCTest
@testable import PhoneAuthCore

final class TimestampTests: XCTestCase {
    func testRFC3339IsWrittenWithFixedWidthFields() {
        XCTAssertEqual(Timestamp(seconds: 0).rfc3339, "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp(seconds: 1_609_502_400).rfc3339, "2021-01-01T12:00:00.000Z")
        XCTAssertEqual(Timestamp(seconds: -1).rfc3339, "1969-12-31T23:59:59.000Z")
        XCTAssertEqual(Timestamp(seconds: 951_782_405).rfc3339, "2000-02-29T00:00:05.000Z")
        XCTAssertEqual(Timestamp(seconds: -59_011_459_200).rfc3339, "0100-01-01T00:00:00.000Z")
    }

    func testRFC3339KeepsTheMilliseconds() {
        XCTAssertEqual(Timestamp(milliseconds: 1_609_502_400_770).rfc3339, "2021-01-01T12:00:00.770Z")
        XCTAssertEqual(Timestamp(milliseconds: 1_609_502_400_007).rfc3339, "2021-01-01T12:00:00.007Z")
        XCTAssertEqual(Timestamp(milliseconds: -1).rfc3339, "1969-12-31T23:59:59.999Z")
    }

    func testRFC3339RoundTripsAcrossCenturies() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let t = Timestamp(
                // 1900 to 3000
                milliseconds: Int64.random(in: -2_208_988_800_000...32_503_680_000_000, using: &generator))
            XCTAssertEqual(Timestamp(rfc3339: t.rfc3339), t, t.rfc3339)
        }
    }

    func testFractionsAndOffsets() {
        XCTAssertEqual(Timestamp(rfc3339: "1970-01-01T00:00:00Z")?.milliseconds, 0)
        XCTAssertEqual(Timestamp(rfc3339: "2021-01-01T12:00:00.123Z")?.milliseconds, 1_609_502_400_123)
        XCTAssertEqual(Timestamp(rfc3339: "2021-01-01T12:00:00.5Z")?.milliseconds, 1_609_502_400_500)
        XCTAssertEqual(Timestamp(rfc3339: "2021-01-01T14:00:00+02:00")?.milliseconds, 1_609_502_400_000)
        XCTAssertEqual(Timestamp(rfc3339: "2021-01-01T07:30:00-04:30")?.milliseconds, 1_609_502_400_000)
        XCTAssertEqual(Timestamp(rfc3339: "2024-02-29T00:00:00Z")?.milliseconds, 1_709_164_800_000)
    }

    func testMalformedTextIsRefused() {
        for text in [
            "", "2021-01-01", "2021-01-01 12:00:00Z", "2021-13-01T00:00:00Z", "2021-01-01T24:00:00Z",
            "2021-01-01T00:00:00",
            "2021-01-01T00:00:00.Z", "2021-01-01T00:00:00+0200", "x021-01-01T00:00:00Z", "2021-01-01T00:00:00Zjunk",
        ] {
            XCTAssertNil(Timestamp(rfc3339: text), text)
        }
    }
}

final class Base64URLTests: XCTestCase {
    func testEncodingMatchesRFC4648AndRoundTrips() {
        // RFC 4648 §10 test vectors, unpadded.
        for (plain, encoded) in [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            XCTAssertEqual(Base64URL.encode(Array(plain.utf8)), encoded)
        }
        XCTAssertEqual(Base64URL.encode([0xfb, 0xff, 0xbf]), "-_-_")
        for count in 0..<200 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255) }
            XCTAssertEqual(Base64URL.decode(Substring(Base64URL.encode(bytes))), bytes)
        }
    }
}
