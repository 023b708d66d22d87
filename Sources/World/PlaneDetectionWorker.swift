import Foundation
import Sensors

/// Runs plane detection off the tracking thread, with results applied at a fixed later frame.
///
/// Plane detection over the whole landmark map costs tens of milliseconds now and then (every 100 ms of data,
/// more on large maps): run on the tracking thread, it stalls that frame. `start` hands a snapshot of the map
/// to a worker thread and returns at once; the session asks for the candidates `delayFrames` frames later with
/// `finish`, which waits for the worker only if it has not finished by then. Detections started on later frames
/// queue behind it (at most `delayFrames` in flight), so a slow one borrows time from the next. What the session
/// does with the candidates therefore depends only on the input (the snapshot and the frame at which they are
/// applied), never on how fast the worker ran: the stream is the same bytes on every run.
final class PlaneDetectionWorker {
    /// Frames between the snapshot and the frame that applies its candidates (≥ 1).
    let delayFrames: Int
    private let queue = DispatchQueue(label: "worldtrack.plane-detection", qos: .userInitiated)
    /// Detections started and not yet applied, oldest first.
    private var pending: [(job: Job, dueFrame: Int)] = []

    /// A detection in flight: the worker writes `detection` and `cpu_ns`, then signals `done`.
    private final class Job: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var detection = PlaneDetection()
        var cpu_ns: UInt64 = 0
    }

    /// The worker's CPU time for the detection `finish` returned last, nanoseconds.
    private(set) var lastCPU_ns: UInt64 = 0

    init(delayFrames: Int) {
        precondition(delayFrames >= 1)
        self.delayFrames = delayFrames
    }

    /// True when `delayFrames` detections are in flight (started, not yet applied): no more may start.
    var isFull: Bool { pending.count >= delayFrames }

    /// Starts detecting planes in `landmarks` on the worker; its candidates are due at frame `frame + delayFrames`.
    func start(_ detector: PlaneDetector, landmarks: [MapLandmark], frame: Int) {
        precondition(!isFull, "\(delayFrames) plane detections are already in flight")
        let job = Job()
        pending.append((job, frame + delayFrames))
        queue.async {
            let t0 = ThreadCPUClock.nanoseconds()
            job.detection = detector.detection(landmarks)
            job.cpu_ns = ThreadCPUClock.nanoseconds() &- t0
            job.done.signal()
        }
    }

    /// The oldest detection if it is due at or before `frame` (waiting for the worker if it is still running), or nil
    /// when none is due. One per call: a backlog is applied one frame at a time.
    func finish(frame: Int) -> PlaneDetection? {
        guard let (job, due) = pending.first, frame >= due else { return nil }
        job.done.wait()
        pending.removeFirst()
        lastCPU_ns = job.cpu_ns
        return job.detection
    }

    /// Waits for the detections in flight and drops their results.
    func cancel() {
        for (job, _) in pending { job.done.wait() }
        pending.removeAll()
    }

    deinit { cancel() }
}
