import NIOCore

/// Runs a connection's tasks on its channel's event loop. Without a preference, Hummingbird's
/// per-connection task runs on the global executor: each request then crosses threads four times
/// (loop to task, task to the engine's pool, back, and the response back to the loop), each a
/// wake-up on a busy machine. On the loop only the engine's work leaves it, and returns; what
/// runs here never blocks (the engine's calls are the `async` ones, done on its own threads).
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
