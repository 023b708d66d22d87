import Foundation
import Geometry
import Sensors

/// Runs the dynamic initialiser's tries off the tracking thread, each outcome taken by the next frame.
///
/// One try of `DynamicInitializer.attempt` costs some 30 ms of CPU (a 1.5 s window of tracks aligned with the IMU for
/// several gyro-bias candidates): on the tracking thread it stalls the frame that runs it, at every start in motion and
/// every re-initialisation after a tracking loss. `start` hands the window (frames, IMU buffer, prior gyro bias: all
/// values, copied) to a worker thread and returns at once; the initialiser takes the outcome on the next frame with
/// `finish`, which waits for the worker only if it has not finished by then. What the estimator does with the outcome
/// therefore depends on the input alone (the window, and the frame that takes it), never on how fast the worker ran:
/// the output is the same on every run. One try is in flight at a time.
final class DynamicInitializationWorker {
    private let queue = DispatchQueue(label: "worldtrack.dynamic-initialization", qos: .userInitiated)
    /// The try in flight, if any.
    private var pending: (job: Job, windowEnd_ns: TimestampNs)?

    /// A try in flight: the worker writes `outcome` and `cpu_ns`, then signals `done`.
    private final class Job: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var outcome: DynamicInitializer.Outcome = .failed
        var cpu_ns: UInt64 = 0
    }

    /// A finished try: its outcome, the time of the last frame of its window (the time its state is at) and the
    /// worker's CPU time for it, nanoseconds.
    struct Finished {
        var outcome: DynamicInitializer.Outcome
        var windowEnd_ns: TimestampNs
        var cpu_ns: UInt64
    }

    init() {}

    /// Starts `initializer.attempt` on the window `frames` (oldest first) on the worker.
    func start(_ initializer: DynamicInitializer, frames: [DynamicInitializer.WindowFrame], buffer: IMUBuffer, gyroBias: Vec3) {
        precondition(pending == nil, "a dynamic initialisation try is already in flight")
        guard let last = frames.last else { return }
        let job = Job()
        pending = (job, last.t_ns)
        queue.async {
            let t0 = ThreadCPUClock.nanoseconds()
            job.outcome = initializer.attempt(frames: frames, buffer: buffer, gyroBias: gyroBias)
            job.cpu_ns = ThreadCPUClock.nanoseconds() &- t0
            job.done.signal()
        }
    }

    /// The try in flight (waiting for the worker if it is still running), or nil when none is.
    func finish() -> Finished? {
        guard let (job, windowEnd) = pending else { return nil }
        job.done.wait()
        pending = nil
        return Finished(outcome: job.outcome, windowEnd_ns: windowEnd, cpu_ns: job.cpu_ns)
    }

    /// Waits for the try in flight, if any, and drops its outcome.
    func cancel() {
        pending?.job.done.wait()
        pending = nil
    }

    deinit { cancel() }
}
