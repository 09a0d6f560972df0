/// What the store calls after committing events, so the dispatcher delivers them at once
/// rather than at its next look at the store.
final class EventBell: @unchecked Sendable {  // `ring` is only read and written under `lock`
    private let lock = Lock()
    private var action: (@Sendable () -> Void)?

    func set(_ action: @escaping @Sendable () -> Void) { lock.withLock { self.action = action } }

    func ring() { lock.withLock { action }?() }
}
