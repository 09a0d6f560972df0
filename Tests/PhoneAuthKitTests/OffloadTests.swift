import Foundation
@testable import PhoneAuthKit
import XCTest

final class OffloadTests: XCTestCase {
    /// The async variants' blocking work runs on the engine's queue, not the caller's executor.
    @MainActor
    func testBlockingWorkLeavesTheCallersExecutor() async throws {
        let (auth, directory) = try openEngine()
        defer { auth.close(); try? FileManager.default.removeItem(at: directory) }
        XCTAssertTrue(Thread.isMainThread)
        let ranOnMain = await auth.offload { Thread.isMainThread }
        XCTAssertFalse(ranOnMain)
    }

    /// A burst of blocked calls runs a few at a time: GCD alone keeps adding threads while its
    /// threads stay blocked (measured here: 3 on 2 cores within 2 s). Width 1, so a pool that
    /// did not hold work back would show at once; the work runs in the order it came.
    func testThePoolRunsNoMoreThanItsWidthInOrder() {
        let pool = BlockingPool(width: 1)
        let counter = Counter()
        let order = Order()
        let done = DispatchGroup()
        for i in 0..<24 {
            done.enter()
            pool.run {
                counter.enter()
                usleep(2_000)  // blocked, as on a database that is slow to answer
                order.append(i)
                counter.leave()
                done.leave()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(counter.peak, 1, "more work ran at once than the pool allows")
        XCTAssertEqual(order.values, Array(0..<24))
    }

    /// The engine's async calls go through its pool: a burst stays within the pool's width, runs
    /// side by side (the first calls wait for a second one to join them), and every call completes.
    func testABurstOfAsyncCallsStaysWithinTheEnginesPool() async throws {
        let (auth, directory) = try openEngine()
        defer { auth.close(); try? FileManager.default.removeItem(at: directory) }
        XCTAssertEqual(
            auth.pool.width, max(4, 2 * ProcessInfo.processInfo.activeProcessorCount), "SQLite has one connection")
        let counter = Counter()
        let calls = 48
        let finished = await withTaskGroup(of: Int.self) { group in
            for i in 0..<calls {
                group.addTask {
                    await auth.offload {
                        counter.enter()
                        counter.waitForPeak(2)
                        counter.leave()
                        return i
                    }
                }
            }
            return await group.reduce(into: Set<Int>()) { $0.insert($1) }
        }
        XCTAssertEqual(finished.count, calls)
        XCTAssertLessThanOrEqual(
            counter.peak, auth.pool.width, "more calls ran at once than the pool allows: \(counter.peak)")
        XCTAssertGreaterThan(counter.peak, 1, "the calls did not run side by side")

        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<24 { group.addTask { try await auth.verifyPhoneNumber("+16505551234").verificationID } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        XCTAssertEqual(results.count, 24)
    }

    private func openEngine() throws -> (PhoneAuth, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = PhoneAuth.Configuration(database: directory.appendingPathComponent("auth.db").path)
        configuration.testPhoneNumbers = ["+16505551234": "123456"]
        return (try PhoneAuth(configuration: configuration), directory)
    }
}

/// How many callers are inside at once, and the most there were.
// @unchecked: its state is only touched under its lock (a test double).
private final class Counter: @unchecked Sendable {
    private let condition = NSCondition()
    private var inside = 0
    private var most = 0
    private var gaveUp = false

    func enter() {
        condition.withLock {
            inside += 1
            most = max(most, inside)
            condition.broadcast()
        }
    }

    func leave() { condition.withLock { inside -= 1 } }
    var peak: Int { condition.withLock { most } }

    /// Waits until `n` callers have been inside at once, up to a deadline that only matters when
    /// the test fails (then once: later callers do not wait again).
    func waitForPeak(_ n: Int) {
        condition.withLock {
            let deadline = Date().addingTimeInterval(30)
            while most < n, !gaveUp {
                if !condition.wait(until: deadline) { gaveUp = true }
            }
        }
    }
}

/// The order work items ran in.
// @unchecked: its state is only touched under its lock (a test double).
private final class Order: @unchecked Sendable {
    private let lock = NSLock()
    private var ran: [Int] = []

    func append(_ value: Int) { lock.withLock { ran.append(value) } }
    var values: [Int] { lock.withLock { ran } }
}
