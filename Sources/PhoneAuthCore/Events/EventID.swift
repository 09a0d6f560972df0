/// Event IDs: `evt_`, the time in milliseconds and a counter (12 + 4 hex digits), then random
/// bytes. Within a process they only grow, so the events of one transaction, and of the
/// transactions of one engine one after another, sort in the order they were recorded; the
/// outbox delivers a user's events in ID order.
enum EventID {
    private static let lock = Lock()
    nonisolated(unsafe) private static var last: (milliseconds: Int64, counter: Int) = (0, 0)  // under `lock`

    static func make(at time: Timestamp) -> String {
        let (milliseconds, counter) = lock.withLock {
            if time.milliseconds > last.milliseconds {
                last = (time.milliseconds, 0)
            } else if last.counter < 0xFFFF {
                last.counter += 1
            } else {
                last = (last.milliseconds + 1, 0)  // 65536 in one millisecond: borrow the next one
            }
            return last
        }
        let count = String(counter, radix: 16)
        return "evt_" + SortableID.prefix(Timestamp(milliseconds: milliseconds))
            + String(repeating: "0", count: 4 - count.count) + count
            + Base64URL.encode(SecureBytes.random(count: 9))
    }
}
