import Foundation
import Imaging
import Sensors
import Vision

/// What the front half of the pipeline hands the back half for one frame: the IMU samples that come before it,
/// then the frame's decoded image(s) and tracked features (or why it has none).
struct FrontWork {
    /// IMU samples (in order) to give the estimator before this frame.
    var imu: [IMUSample] = []
    /// The frame; nil for the last item, which carries only the IMU after the last frame.
    var left: CameraFrameRef?
    /// The decoded left (and right) image; nil when the frame is skipped.
    var images: (GrayImage, GrayImage?)?
    /// Why the frame is skipped (an image that cannot be decoded).
    var skipped: SkippedImage?
    /// Gyro samples spanning the interval since the previous frame (empty for the first), for the frontend.
    var gyro: [IMUSample] = []
    /// The frontend's features, or its error (which ends the run); nil until tracked.
    var features: Result<FeatureFrameResult, any Error>?
    /// CPU time of the decode and of the frontend, on the thread that ran each, ns.
    var decode_ns: UInt64 = 0
    var frontend_ns: UInt64 = 0
}

/// The front half of the pipeline: walks the dataset's events and decodes each frame (`nextDecoded`), then tracks
/// its features with the gyro samples since the previous frame (`track`). It uses nothing the estimator computes,
/// so it can run ahead of the back half on another thread (`FrontHalfThread`) with the same features.
final class FrontHalf {
    private var events: SensorEventSequence.Iterator
    private let tracker: FeatureTracker
    private let stereo: Bool
    /// Frames before `startT` are passed over (their IMU is kept); frames after `endT` end the run, and events
    /// after `stopT` (`endT` plus the IMU look-ahead) are not read.
    private let startT: TimestampNs, endT: TimestampNs, stopT: TimestampNs
    private let loadImage: (CameraFrameRef) throws -> GrayImage
    /// Gyro samples spanning the interval since the previous frame (plus 20 ms before it, for interpolation).
    private var recentIMU: [IMUSample] = []
    private var lastFrameT: TimestampNs?
    private var finished = false
    /// Gyro samples further apart than this (an IMU gap, as the estimator detects it), ns, predict no rotation:
    /// interpolated across the gap they would miss its turn, and the frontend measures the rotation from the tracks
    /// instead (`FeatureFrameResult.visualRotation_Cnew_Cold`). nil: every interval is trusted.
    private let imuGapLimit_ns: TimestampNs?

    init(events: SensorEventSequence, tracker: FeatureTracker, stereo: Bool, startT: TimestampNs = .min, endT: TimestampNs,
         stopT: TimestampNs, imuGapLimit_ns: TimestampNs? = nil, loadImage: @escaping (CameraFrameRef) throws -> GrayImage) {
        self.events = events.makeIterator()
        self.tracker = tracker
        self.stereo = stereo
        self.startT = startT; self.endT = endT; self.stopT = stopT
        self.imuGapLimit_ns = imuGapLimit_ns
        self.loadImage = loadImage
    }

    /// Whether `samples` cover [t0, t1] with no two consecutive ones (nor an end of the interval and the nearest
    /// one) further apart than `limit_ns`.
    static func gyroCovers(_ samples: [IMUSample], from t0: TimestampNs, to t1: TimestampNs, limit_ns: TimestampNs) -> Bool {
        var previous: TimestampNs?
        for s in samples {
            if s.t_ns <= t0 { previous = s.t_ns; continue }
            if s.t_ns - (previous ?? t0) > limit_ns { return false }
            previous = s.t_ns
            if s.t_ns >= t1 { return true }
        }
        return t1 - (previous ?? t0) <= limit_ns
    }

    /// The next frame decoded and tracked, the trailing IMU after the last frame, then nil.
    func next() -> FrontWork? {
        guard var work = nextDecoded() else { return nil }
        track(&work)
        return work
    }

    /// The next frame decoded (not yet tracked), the trailing IMU after the last frame, then nil.
    func nextDecoded() -> FrontWork? {
        guard !finished else { return nil }
        var work = FrontWork()
        while let event = events.next() {
            if event.t_ns > stopT { break }
            let left: CameraFrameRef, right: CameraFrameRef?
            switch event {
            case .imu(let sample):
                work.imu.append(sample)
                recentIMU.append(sample)
                continue
            case .frame(let cameraIndex, let ref):
                guard cameraIndex == 0, ref.t_ns <= endT else { continue }
                left = ref; right = nil
            case .stereoFrame(let l, let r):
                guard l.t_ns <= endT else { continue }
                left = l; right = stereo ? r : nil
            }
            if left.t_ns < startT {
                // Before the start: not decoded, not tracked; its IMU goes to the estimator with the first frame
                // processed. No gyro interval for the frontend spans it (the first frame tracked has none).
                recentIMU.removeAll(keepingCapacity: true)
                continue
            }
            work.left = left
            decode(left: left, right: right, into: &work)
            if work.images != nil {
                if let t0 = lastFrameT, imuGapLimit_ns.map({ Self.gyroCovers(recentIMU, from: t0, to: left.t_ns, limit_ns: $0) }) ?? true {
                    work.gyro = recentIMU
                } else {
                    work.gyro = []
                }
                lastFrameT = left.t_ns
                recentIMU.removeAll { $0.t_ns < left.t_ns - 20_000_000 }
            }
            return work
        }
        finished = true
        return work
    }

    private func decode(left: CameraFrameRef, right: CameraFrameRef?, into work: inout FrontWork) {
        let t0 = ThreadCPUClock.nanoseconds()
        defer { work.decode_ns = ThreadCPUClock.nanoseconds() &- t0 }
        do {
            work.images = (try loadImage(left), try right.map(loadImage))
        } catch let failure as SkippedImage {
            work.skipped = failure
        } catch {
            work.skipped = SkippedImage(t_ns: left.t_ns, path: left.path, reason: "\(error)")
        }
    }

    /// Tracks the features of a decoded frame (nothing for a skipped frame or the trailing IMU).
    func track(_ work: inout FrontWork) {
        guard let left = work.left, let images = work.images else { return }
        let t0 = ThreadCPUClock.nanoseconds()
        defer { work.frontend_ns = ThreadCPUClock.nanoseconds() &- t0 }
        work.features = Result { try tracker.track(images.0, right: images.1, t_ns: left.t_ns, gyroSamples: work.gyro) }
    }

}

/// Runs the front half on two threads of its own, ahead of the caller, who runs the back half (estimator, map reuse,
/// world, stream) of an earlier frame: one thread reads and decodes the frames (`FrontHalf.nextDecoded`), the other
/// tracks their features (`FrontHalf.track`, which uses only the tracker, not the reading state). Per frame of V1_01
/// mono the three shares are about 0.7 ms (decode), 2.0 ms (frontend) and 0.9 ms (the rest) of CPU, so with the
/// plane detection's worker the operating system can keep two cores busy; the front half needs nothing the back
/// half computes.
///
/// The items come out in the order they were read, so the back half sees the same sequence as when it calls
/// `FrontHalf.next()` itself: only the timing differs.
final class FrontHalfThread: @unchecked Sendable {
    private let front: FrontHalf
    private let depth: Int
    private let condition = NSCondition()
    /// Decoded, waiting to be tracked.
    private var decoded: [FrontWork] = []
    /// Tracked, waiting for the caller.
    private var tracked: [FrontWork] = []
    /// The reader returned its last item; the tracker has tracked it.
    private var readerDone = false, trackerDone = false
    private var stopping = false
    private var running = 0

    /// `depth`: frames each of the two queues holds at most (at least 1); more absorbs the stages' frame-to-frame
    /// variation and the plane worker's bursts, which take a core for up to 10 ms (V1_01 145 s mono, two threads:
    /// 6.17 s of wall time with 3, 5.88 s with 8, six runs each alternated; peak resident memory 76–77 → 78–80 MB: a
    /// queued mono frame holds its 360 KB image).
    init(_ front: FrontHalf, depth: Int = 8) {
        self.front = front
        self.depth = max(1, depth)
    }

    /// Starts the reading and the tracking thread.
    func start() {
        running = 2
        for (name, body) in [("worldtrack.decode", read), ("worldtrack.frontend", trackAll)] as [(String, () -> Void)] {
            let thread = Thread { body() }
            thread.name = name
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Marks a thread finished; called with the lock held.
    private func exit() {
        running -= 1
        condition.broadcast()
        condition.unlock()
    }

    private func read() {
        while true {
            condition.lock()
            while decoded.count >= depth && !stopping { condition.wait() }
            if stopping { return exit() }
            condition.unlock()
            let item = front.nextDecoded()
            condition.lock()
            if let item { decoded.append(item) } else { readerDone = true }
            condition.broadcast()
            if item == nil { return exit() }
            condition.unlock()
        }
    }

    private func trackAll() {
        while true {
            condition.lock()
            while (decoded.isEmpty && !readerDone || tracked.count >= depth) && !stopping { condition.wait() }
            if stopping { return exit() }
            guard !decoded.isEmpty else { trackerDone = true; return exit() }
            var item = decoded.removeFirst()
            condition.broadcast()
            condition.unlock()
            front.track(&item)
            condition.lock()
            tracked.append(item)
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The next frame, decoded and tracked on the threads (waiting for it if need be); nil after the last.
    func next() -> FrontWork? {
        condition.lock()
        defer { condition.unlock() }
        while tracked.isEmpty && !trackerDone { condition.wait() }
        guard !tracked.isEmpty else { return nil }
        let item = tracked.removeFirst()
        condition.broadcast()
        return item
    }

    /// Stops both threads after the frames they are working on and waits until they have.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }
}
