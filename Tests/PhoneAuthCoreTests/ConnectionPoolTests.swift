import Dispatch
import Glibc
import XCTest

@testable import PhoneAuthCore

/// The pool's statistics say how busy its connections were and how often a caller waited: with
/// SQLite's one connection, what bounds the gain of more threads.
final class ConnectionPoolTests: XCTestCase {
    func testBusyTimeAndWaitsAreCounted() throws {
        let path = temporaryDirectory() + "/pool.db"
        let pool = ConnectionPool(size: 1, first: try SQLiteConnection(path: path, synchronous: .normal)) {
            try SQLiteConnection(path: path, synchronous: .normal)
        }
        defer { pool.close() }
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done) {
            _ = try? pool.withConnection { _ in
                holding.signal()
                release.wait()
            }
        }
        holding.wait()
        let heldSince = monotonicMicroseconds()
        DispatchQueue.global().async(group: done) {
            _ = try? pool.withConnection { _ in }
        }
        // The second caller finds the only connection in use: it counts a wait before it yields.
        XCTAssertTrue(eventually { pool.currentStatistics.waits == 1 })
        XCTAssertEqual(pool.currentStatistics.busyMicroseconds, 0, "nothing was checked in yet")
        usleep(20_000)
        let held = monotonicMicroseconds() - heldSince
        release.signal()
        done.wait()
        let statistics = pool.currentStatistics
        XCTAssertEqual(statistics.waits, 1)
        XCTAssertGreaterThanOrEqual(statistics.busyMicroseconds, held)
        _ = try pool.withConnection { _ in }
        XCTAssertEqual(pool.currentStatistics.waits, 1, "a free connection is no wait")
    }
}
