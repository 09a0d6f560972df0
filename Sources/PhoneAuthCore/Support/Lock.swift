import Glibc

/// A mutual-exclusion lock over pthread_mutex_t, with a condition variable for waiting.
package final class Lock: @unchecked Sendable {  // a pthread mutex, made to be shared between threads
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = newMonotonicCondition()

    package init() {
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits, with the lock held by the caller, until signalled or `milliseconds` pass.
    package func wait(milliseconds: Int64) { wait(on: condition, milliseconds: milliseconds) }

    private func wait(on condition: UnsafeMutablePointer<pthread_cond_t>, milliseconds: Int64) {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let total = Int64(deadline.tv_nsec) + (milliseconds % 1000) * 1_000_000
        deadline.tv_sec += Int(milliseconds / 1000 + total / 1_000_000_000)
        deadline.tv_nsec = Int(total % 1_000_000_000)
        pthread_cond_timedwait(condition, mutex, &deadline)
    }

    package func broadcast() { pthread_cond_broadcast(condition) }
    package func signal() { pthread_cond_signal(condition) }

    /// Another condition variable on this lock's mutex, for waiters that must be woken apart
    /// from those of the lock's own condition (waking both kinds would cost needless switches).
    package final class Condition: @unchecked Sendable {  // a pthread condition, made to be shared between threads
        private let lock: Lock
        private let condition = newMonotonicCondition()

        package init(of lock: Lock) {
            self.lock = lock
        }

        deinit {
            pthread_cond_destroy(condition)
            condition.deallocate()
        }

        /// Waits, with the lock held by the caller, until signalled or `milliseconds` pass.
        package func wait(milliseconds: Int64) { lock.wait(on: condition, milliseconds: milliseconds) }
        package func signal() { pthread_cond_signal(condition) }
        package func broadcast() { pthread_cond_broadcast(condition) }
    }
}

/// A condition variable whose timed waits use the monotonic clock (deadlines survive clock changes).
private func newMonotonicCondition() -> UnsafeMutablePointer<pthread_cond_t> {
    let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
    pthread_cond_init(condition, &attributes)
    pthread_condattr_destroy(&attributes)
    return condition
}
