import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PhoneAuthCore

/// Runs the `async` variants' blocking work, at most `width` items at once; the rest wait in
/// order. GCD starts another thread whenever its threads block, so a burst of calls all waiting
/// on the database would otherwise grow dozens of threads that only queue at the store.
final class BlockingPool: @unchecked Sendable {  // its state is guarded by `lock`
    typealias Work = @Sendable () -> Void

    let width: Int
    private let queue = DispatchQueue(label: "PhoneAuthKit.blocking", attributes: .concurrent)
    private let lock = Lock()
    private var running = 0
    /// Waiting work, oldest first from `head` (taken items are dropped in batches, not one by one).
    private var waiting: [Work?] = []
    private var head = 0

    init(width: Int) {
        self.width = max(1, width)
    }

    /// Twice as many at once as the store has connections or the machine has cores, whichever is
    /// more, and at least 4: the store's and the CPU's work needs no more than one of each, and
    /// the rest is room for hooks that wait on the network (a push sender, a captcha verifier),
    /// so that a few slow ones do not hold up every call.
    convenience init(storeConnections: Int) {
        self.init(width: max(4, 2 * max(storeConnections, ProcessInfo.processInfo.activeProcessorCount)))
    }

    func run(_ work: @escaping Work) {
        let startsNow = lock.withLock { () -> Bool in
            guard running < width else {
                waiting.append(work)
                return false
            }
            running += 1
            return true
        }
        if startsNow { queue.async { self.drain(from: work) } }
    }

    /// Runs `work`, then whatever waits, on this thread, until nothing does.
    private func drain(from work: @escaping Work) {
        var next: Work? = work
        while let current = next {
            current()
            next = lock.withLock { () -> Work? in
                guard head < waiting.count else {
                    running -= 1
                    waiting.removeAll(keepingCapacity: true)
                    head = 0
                    return nil
                }
                defer {
                    waiting[head] = nil
                    head += 1
                    if head >= 64 && head * 2 >= waiting.count {
                        waiting.removeFirst(head)
                        head = 0
                    }
                }
                return waiting[head]
            }
        }
    }
}
