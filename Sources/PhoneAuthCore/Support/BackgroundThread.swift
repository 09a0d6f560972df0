import Glibc

/// Starts the engine's own threads (delivery, purge): plain pthreads, joined when their owner
/// stops, so closing an engine leaves nothing of it running.
enum BackgroundThread {
    /// Runs `body` on a new thread; its handle is for `pthread_join`. `kind` names the thread in
    /// the error ("delivery": "A delivery thread could not be started").
    static func start(_ kind: String, _ body: @escaping () -> Void) throws -> pthread_t {
        final class Start {
            let body: () -> Void
            init(_ body: @escaping () -> Void) { self.body = body }
        }
        let box = Unmanaged.passRetained(Start(body))
        var handle = pthread_t()
        let rc = pthread_create(
            &handle, nil,
            { raw in
                guard let raw else { return nil }
                Unmanaged<Start>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, box.toOpaque())
        guard rc == 0 else {
            box.release()
            throw PhoneAuthError(.internalError, "A \(kind) thread could not be started (error \(rc)).")
        }
        return handle
    }
}
