import XCTest

@testable import PhoneAuthCore

/// Query strings are split and decoded by bytes: what each form gives, and what is refused.
final class PercentEncodingTests: XCTestCase {
    func testQueryItems() throws {
        let cases: [(String, [(String, String)]?)] = [
            ("a=1&b=2", [("a", "1"), ("b", "2")]),
            ("key=bench&sessionInfo=01abc_-x", [("key", "bench"), ("sessionInfo", "01abc_-x")]),
            ("a=x%3Dy&b=1+2", [("a", "x=y"), ("b", "1 2")]),
            ("a=b=c", [("a", "b=c")]),
            ("&&a=&=v&", [("a", ""), ("", "v")]),
            ("n%C3%A9=%E2%82%AC", [("né", "€")]),
            ("né=€", [("né", "€")]),
            ("", []),
            ("a", nil), ("a=1&b", nil), ("a=%zz", nil), ("a=%4", nil), ("a=%FF", nil),
        ]
        for (query, expected) in cases {
            let items = PercentEncoding.queryItems(query)
            XCTAssertEqual(
                items.map { $0.map { "\($0.0)=\($0.1)" } }, expected.map { $0.map { "\($0.0)=\($0.1)" } }, query)
        }
        XCTAssertEqual(PercentEncoding.decode("a+b%20c"), "a b c")
        XCTAssertEqual(PercentEncoding.decode("plain"), "plain")
        XCTAssertNil(PercentEncoding.decode("%E2%82"))
    }
}
