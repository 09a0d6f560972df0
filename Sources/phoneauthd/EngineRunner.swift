import NIOPosix
import PhoneAuthCore
import PhoneAuthKit

/// Runs the engine's blocking calls (SQLite, PostgreSQL, crypto) on a thread pool of their own,
/// never on the event loops. The server drives the engine through PhoneAuthKit, as any Swift host.
final class EngineRunner: Sendable {
    let auth: PhoneAuth
    private let pool: NIOThreadPool

    init(auth: PhoneAuth, threads: Int) {
        self.auth = auth
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    func run<T: Sendable>(_ body: @escaping @Sendable (PhoneAuth) throws -> T) async throws -> T {
        let auth = self.auth
        return try await pool.runIfActive { try body(auth) }
    }

    /// phoneauth_call's entry point, off the event loop: the status and the result's JSON text.
    func call(_ method: String, paramsJSON: String) async -> (status: Int32, json: String) {
        do {
            return try await run { $0.call(method, paramsJSON: paramsJSON) }
        } catch {
            let failure = PhoneAuthCore.PhoneAuthError(.storageError, "The server is shutting down.", details: [("retryable", .bool(true))])
            return (failure.code.status, JSONCodec.serialize(failure.jsonValue))
        }
    }

    /// Waits for the calls in flight, then closes the engine (its delivery threads and store).
    func shutdown() async {
        try? await pool.shutdownGracefully()
        auth.close()
    }
}
