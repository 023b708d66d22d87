import Foundation
import Imaging
import Sensors
import Vision

/// What the front half of the pipeline hands the back half for one frame: the IMU samples that come before it,
/// then the frame's decoded image(s) and tracked features (or why it has none).
struct FrontWork {
    /// IMU samples (in order) to give the estimator before this frame.
    var imu: [ImuSample] = []
    /// The frame; nil for the last item, which carries only the IMU after the last frame.
    var left: CameraFrameRef?
    /// The decoded images and the frontend's features, or the reason the frame is skipped (`SkippedImage`) or the
    /// run fails (any other error).
    var result: Result<(images: (GrayImage, GrayImage?), features: FeatureFrameResult), any Error>?
    /// CPU time of the decode and of the frontend, on the thread that ran them, ns.
    var decode_ns: UInt64 = 0
    var frontend_ns: UInt64 = 0
}

/// The front half of the pipeline: walks the dataset's events, decodes each frame and tracks its features with the
/// gyro samples since the previous frame. It uses nothing the estimator computes, so it can run a frame ahead of
/// the back half on another thread (`FrontHalfThread`) and give exactly the same features.
final class FrontHalf {
    private var events: SensorEventSequence.Iterator
    private let tracker: FeatureTracker
    private let stereo: Bool
    private let endT: TimestampNs, stopT: TimestampNs
    private let loadImage: (CameraFrameRef) throws -> GrayImage
    /// Gyro samples spanning the interval since the previous frame (plus 20 ms before it, for interpolation).
    private var recentImu: [ImuSample] = []
    private var lastFrameT: TimestampNs?
    private var finished = false

    init(events: SensorEventSequence, tracker: FeatureTracker, stereo: Bool, endT: TimestampNs, stopT: TimestampNs,
         loadImage: @escaping (CameraFrameRef) throws -> GrayImage) {
        self.events = events.makeIterator()
        self.tracker = tracker
        self.stereo = stereo
        self.endT = endT; self.stopT = stopT
        self.loadImage = loadImage
    }

    /// The next frame's work, the trailing IMU after the last frame, then nil.
    func next() -> FrontWork? {
        guard !finished else { return nil }
        var work = FrontWork()
        while let event = events.next() {
            if event.t_ns > stopT { break }
            let left: CameraFrameRef, right: CameraFrameRef?
            switch event {
            case .imu(let sample):
                work.imu.append(sample)
                recentImu.append(sample)
                continue
            case .frame(let cameraIndex, let ref):
                guard cameraIndex == 0, ref.t_ns <= endT else { continue }
                left = ref; right = nil
            case .stereoFrame(let l, let r):
                guard l.t_ns <= endT else { continue }
                left = l; right = stereo ? r : nil
            }
            work.left = left
            work.result = process(left: left, right: right, work: &work)
            return work
        }
        finished = true
        return work
    }

    private func process(left: CameraFrameRef, right: CameraFrameRef?, work: inout FrontWork)
        -> Result<(images: (GrayImage, GrayImage?), features: FeatureFrameResult), any Error> {
        let t0 = Self.threadCPU_ns()
        let images: (GrayImage, GrayImage?)
        do {
            images = (try loadImage(left), try right.map(loadImage))
        } catch let failure as SkippedImage {
            work.decode_ns = Self.threadCPU_ns() &- t0
            return .failure(failure)
        } catch {
            work.decode_ns = Self.threadCPU_ns() &- t0
            return .failure(SkippedImage(t_ns: left.t_ns, path: left.path, reason: "\(error)"))
        }
        let t1 = Self.threadCPU_ns()
        work.decode_ns = t1 &- t0
        defer { work.frontend_ns = Self.threadCPU_ns() &- t1 }
        do {
            let features = try tracker.track(images.0, right: images.1, t_ns: left.t_ns,
                                             gyroSamples: lastFrameT == nil ? [] : recentImu)
            lastFrameT = left.t_ns
            recentImu.removeAll { $0.t_ns < left.t_ns - 20_000_000 }
            return .success((images, features))
        } catch {
            return .failure(error)
        }
    }

    static func threadCPU_ns() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

/// Runs a `FrontHalf` on its own thread, up to `depth` frames ahead of the caller of `next()`.
///
/// The items come out in the order the front half made them, so the back half sees the same sequence as when it
/// calls the front half itself: only the timing differs.
final class FrontHalfThread: @unchecked Sendable {
    private let front: FrontHalf
    private let depth: Int
    private let condition = NSCondition()
    private var queue: [FrontWork] = []
    private var done = false
    private var stopping = false
    private var thread: Thread?

    init(_ front: FrontHalf, depth: Int = 2) {
        self.front = front
        self.depth = max(1, depth)
    }

    /// Starts the worker thread.
    func start() {
        let thread = Thread { [self] in produce() }
        thread.name = "worldtrack.front-half"
        thread.stackSize = 8 << 20
        self.thread = thread
        thread.start()
    }

    private func produce() {
        while true {
            condition.lock()
            while queue.count >= depth && !stopping { condition.wait() }
            let stop = stopping
            condition.unlock()
            if stop { break }
            let work = front.next()
            condition.lock()
            if let work { queue.append(work) } else { done = true }
            condition.broadcast()
            condition.unlock()
            if work == nil { return }
        }
        condition.lock(); done = true; condition.broadcast(); condition.unlock()
    }

    /// The next item, waiting for the worker if needed; nil after the last.
    func next() -> FrontWork? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !done { condition.wait() }
        guard !queue.isEmpty else { return nil }
        let work = queue.removeFirst()
        condition.broadcast()
        return work
    }

    /// Stops the worker after the item it is making and waits until it has.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !done { condition.wait() }
        condition.unlock()
    }
}
