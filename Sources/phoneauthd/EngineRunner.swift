import NIOPosix
import PhoneAuthCore

/// Runs the engine's blocking calls (SQLite, PostgreSQL, crypto) on a thread pool of their own,
/// never on the event loops.
final class EngineRunner: Sendable {
    let engine: Engine
    private let pool: NIOThreadPool

    init(engine: Engine, threads: Int) {
        self.engine = engine
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    func run<T: Sendable>(_ body: @escaping @Sendable (Engine) throws -> T) async throws -> T {
        let engine = self.engine
        return try await pool.runIfActive { try body(engine) }
    }

    /// phoneauth_call's entry point, off the event loop.
    func call(_ method: String, _ params: JSONValue) async -> (status: Int32, result: JSONValue) {
        do {
            return try await run { $0.call(method, params: params) }
        } catch {
            let failure = PhoneAuthError(.storageError, "The server is shutting down.", details: [("retryable", .bool(true))])
            return (failure.code.status, failure.jsonValue)
        }
    }

    /// Waits for the calls in flight, then closes the engine (its delivery threads and store).
    func shutdown() async {
        try? await pool.shutdownGracefully()
        engine.close()
    }
}
