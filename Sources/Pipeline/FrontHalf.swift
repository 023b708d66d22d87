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
/// so the tracking can run ahead of the back half on another thread (`FrontHalfThread`) with the same features.
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

    init(events: SensorEventSequence, tracker: FeatureTracker, stereo: Bool, startT: TimestampNs = .min, endT: TimestampNs,
         stopT: TimestampNs, loadImage: @escaping (CameraFrameRef) throws -> GrayImage) {
        self.events = events.makeIterator()
        self.tracker = tracker
        self.stereo = stereo
        self.startT = startT; self.endT = endT; self.stopT = stopT
        self.loadImage = loadImage
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
                work.gyro = lastFrameT == nil ? [] : recentIMU
                lastFrameT = left.t_ns
                recentIMU.removeAll { $0.t_ns < left.t_ns - 20_000_000 }
            }
            return work
        }
        finished = true
        return work
    }

    private func decode(left: CameraFrameRef, right: CameraFrameRef?, into work: inout FrontWork) {
        let t0 = Self.threadCPU_ns()
        defer { work.decode_ns = Self.threadCPU_ns() &- t0 }
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
        let t0 = Self.threadCPU_ns()
        defer { work.frontend_ns = Self.threadCPU_ns() &- t0 }
        work.features = Result { try tracker.track(images.0, right: images.1, t_ns: left.t_ns, gyroSamples: work.gyro) }
    }

    static func threadCPU_ns() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

/// Tracks the features of decoded frames on its own thread, while the caller decodes the next frame and runs the
/// back half of the current one: per frame the caller does decode + estimator + world + stream, this thread the
/// frontend, the two largest shares of the work.
///
/// The items come out in the order they were decoded, so the back half sees the same sequence as when it calls
/// `FrontHalf.next()` itself: only the timing differs.
final class FrontHalfThread: @unchecked Sendable {
    private let front: FrontHalf
    private let depth: Int
    private let condition = NSCondition()
    private var inbox: [FrontWork] = []
    private var outbox: [FrontWork] = []
    private var stopping = false
    private var exited = false
    /// Items decoded and not yet returned by `next()` (caller's thread only).
    private var inFlight = 0

    /// `depth`: frames decoded ahead of the one the caller works on (at least 1).
    init(_ front: FrontHalf, depth: Int = 1) {
        self.front = front
        self.depth = max(1, depth)
    }

    /// Starts the tracking thread.
    func start() {
        let thread = Thread { [self] in work() }
        thread.name = "worldtrack.frontend"
        thread.stackSize = 8 << 20
        thread.start()
    }

    private func work() {
        while true {
            condition.lock()
            while inbox.isEmpty && !stopping { condition.wait() }
            if stopping { exited = true; condition.broadcast(); condition.unlock(); return }
            var item = inbox.removeFirst()
            condition.unlock()
            front.track(&item)
            condition.lock()
            outbox.append(item)
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The next frame, decoded here and tracked on the thread; nil after the last. Decodes up to `depth` frames
    /// beyond it first, so the thread has the next one to track while the caller works on this one.
    func next() -> FrontWork? {
        while inFlight <= depth, let decoded = front.nextDecoded() {
            condition.lock()
            inbox.append(decoded)
            condition.broadcast()
            condition.unlock()
            inFlight += 1
        }
        guard inFlight > 0 else { return nil }
        condition.lock()
        defer { condition.unlock() }
        while outbox.isEmpty { condition.wait() }
        inFlight -= 1
        return outbox.removeFirst()
    }

    /// Stops the thread after the frame it is tracking and waits until it has.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !exited { condition.wait() }
        condition.unlock()
    }
}
