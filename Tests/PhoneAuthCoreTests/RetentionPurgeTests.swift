import XCTest
@testable import PhoneAuthCore

/// The retention purge as a chore of its own: it purges when started, then every ten minutes of
/// the engine's clock (a ManualClock here), and stops when told.
final class RetentionPurgeTests: XCTestCase {
    func testPurgesAtStartThenEveryIntervalOfTheClock() throws {
        let dir = temporaryDirectory()
        let store = try Database(makeConfig(dir)).open()
        defer { store.close() }
        let clock = ManualClock()
        let now = clock.now()
        let day: Int64 = 86_400
        // Expired a day and an hour ago (purged at once), five minutes short of a day ago (purged
        // by the first purge five minutes later), and not yet expired (kept).
        for (i, expires) in [
            now.adding(seconds: -day - 3_600), now.adding(seconds: -day + 300),
            now.adding(seconds: 300),
        ].enumerated() {
            let created = expires.adding(seconds: -300)
            _ = try store.startVerification(
                NewVerification(
                    id: VerificationCode.newVerificationId(at: created), phone: "+1650555123\(i)",
                    codeHash: [1], createdAt: created, expiresAt: expires, outbox: nil, tenant: .defaultPool, channel: .sms,
                    channelAsked: false),
                reuseIfCreatedAfter: now, lease: DeliveryLease(owner: "test", until: now), limits: nil)
        }
        let purge = RetentionPurge(store: store, clock: clock)
        try purge.start()
        XCTAssertTrue(try eventually { try rowCount(dir, "verifications") == 2 }, "not purged at start")
        // Six minutes on, the second row is old enough, but the next purge is ten minutes after the first.
        clock.advance(seconds: 360)
        usleep(UInt32(3 * RetentionPurge.lookMilliseconds * 1000))
        XCTAssertEqual(try rowCount(dir, "verifications"), 2, "purged before the interval")
        clock.advance(seconds: 240)
        XCTAssertTrue(try eventually { try rowCount(dir, "verifications") == 1 }, "not purged after the interval")
        purge.stop()
    }
}
