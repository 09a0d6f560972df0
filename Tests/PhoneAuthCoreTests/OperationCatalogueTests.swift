import XCTest
@testable import PhoneAuthCore

/// The catalogue of operations: each declared once, closed unless opened on purpose.
final class OperationCatalogueTests: XCTestCase {
    func testNamesAreUniqueAndEveryOneIsFound() {
        let names = Engine.operations.map(\.name)
        XCTAssertEqual(Set(names).count, names.count)
        for name in names { XCTAssertEqual(Engine.operation(named: name)?.name, name) }
        XCTAssertNil(Engine.operation(named: "noSuchMethod"))
    }

    /// The server sets the address of exactly the operations that take one.
    func testTheServerSetsTheAddressOfEveryOperationThatTakesOne() {
        for operation in Engine.operations {
            XCTAssertEqual(operation.setsClientIp, operation.parameters.contains("clientIp"), operation.name)
        }
    }

    /// null is taken only where it clears something, and only by a parameter the operation takes.
    func testNullIsRefusedUnlessTheOperationTakesIt() throws {
        for operation in Engine.operations {
            XCTAssertTrue(operation.nullable.isSubset(of: operation.parameters), operation.name)
        }
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        defer { engine.close() }
        let (status, result) = engine.call("listUsers", params: .object([("pageToken", .null)]))
        XCTAssertEqual(status, PhoneAuthError.Code.invalidArgument.status)
        XCTAssertEqual(result["error"]?["details"]?["field"], .string("pageToken"))
        let created = engine.call(
            "createUser", params: .object([("uid", .string("u1")), ("displayName", .string("A"))]))
        XCTAssertEqual(created.status, 0)
        let cleared = engine.call("updateUser", params: .object([("uid", .string("u1")), ("displayName", .null)]))
        XCTAssertEqual(cleared.status, 0)
        XCTAssertEqual(cleared.result["user"]?["displayName"], .null)
    }

    func testAnOperationThatDoesNotSayIsAdmin() {
        let undeclared = Operation("undeclared", parameters: []) { _, _, _ in .null }
        XCTAssertEqual(undeclared.access, .admin)
        XCTAssertFalse(undeclared.setsClientIp)
    }

    /// Managing users, keys and tokens for others is admin; the master key never leaves the library.
    func testAccessOfTheOperationsThatMatter() {
        for name in [
            "createUser", "updateUser", "deleteUser", "getUser", "listUsers", "exportUsers", "importUsers",
            "setCustomUserClaims", "createCustomToken", "rotateSigningKey", "getVerificationStatus",
        ] {
            XCTAssertEqual(Engine.operation(named: name)?.access, .admin, name)
        }
        XCTAssertEqual(Engine.operation(named: "rekey")?.access, .library)
        XCTAssertEqual(Engine.operation(named: "signInWithCredential")?.access, .client)
    }

    /// A parameter no operation declares is refused before it runs, naming it.
    func testUndeclaredParametersAreRefusedBeforeTheOperationRuns() throws {
        let engine = try Engine(config: makeConfig(temporaryDirectory()))
        defer { engine.close() }
        let (status, result) = engine.call("getJwks", params: .object([("extra", .int(1))]))
        XCTAssertEqual(status, PhoneAuthError.Code.invalidArgument.status)
        XCTAssertEqual(result["error"]?["details"]?["field"], .string("extra"))
        let listed = engine.call("listMethods", params: .object([])).result["methods"]
        guard case let .array(methods)? = listed else { return XCTFail("listMethods answers no list") }
        XCTAssertEqual(methods.count, Engine.operations.count)
        XCTAssertEqual(methods.first?["access"], .string(Engine.operations[0].access.rawValue))
    }
}
