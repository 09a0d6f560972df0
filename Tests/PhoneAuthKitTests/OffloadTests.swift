import Foundation
@testable import PhoneAuthKit
import XCTest

final class OffloadTests: XCTestCase {
    /// The async variants' blocking work runs on the engine's queue, not the caller's executor.
    @MainActor
    func testBlockingWorkLeavesTheCallersExecutor() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let auth = try PhoneAuth(configuration: .init(database: directory.appendingPathComponent("auth.db").path))
        defer { auth.close() }
        XCTAssertTrue(Thread.isMainThread)
        let ranOnMain = await auth.offload { Thread.isMainThread }
        XCTAssertFalse(ranOnMain)
    }
}
