import Foundation
import Geometry
import Sensors

/// Chooses between static and dynamic initialisation (OpenVINS' `InertialInitializer`) and keeps the window
/// of recent frames the dynamic one needs.
///
/// Per frame while the filter is not initialised (`tryInitialize`): the frame joins the window (the last
/// `dynamicWindow` seconds); then
/// 1. when the image is still (median disparity ≤ `stillDisparity_px`, or unknown, and its tracks did not move
///    over the estimator's still-image baseline) the `StaticInitializer` tries the last `staticWindow` of IMU
///    (rest test);
/// 2. otherwise, when `dynamicInitialization` is on and the window spans at least 90 % of `dynamicWindow`,
///    the `DynamicInitializer` aligns the window's tracks with the IMU.
/// A still image with a moving IMU (or a moving image with a resting IMU) initialises neither way, nor does motion
/// whose window does not determine the speed (`DynamicInitializer.Refusal`; `lastRefusal` says so).
///
/// With `dynamicInitializationOnWorker` a dynamic try runs on a worker thread (`DynamicInitializationWorker`) and the
/// next `tryInitialize` takes its outcome, before anything else: the state it finds is at the time of its window's last
/// frame, the previous frame (`VIOEstimator` applies it there). The windows tried are the same as in place.
struct InertialInitializer {
    /// How the filter was initialised.
    enum Method: Equatable { case staticRest, dynamicAlignment }

    /// The initial inertial state (at the time the method reports, at most the frame's) and its covariance.
    struct Result {
        var state: IMUState
        var covariance: Mat15
        var method: Method
    }

    let options: InertialInitializerOptions
    private let staticInitializer: StaticInitializer
    private let dynamicInitializer: DynamicInitializer
    /// Recent frames (oldest first), for the dynamic initialiser.
    private(set) var window: [DynamicInitializer.WindowFrame] = []
    /// Why the dynamic initialiser refused the window on the last `tryInitialize` (nil: it was not refused, or it
    /// was not tried because it refused one less than `retryAfterRefusal_s` ago).
    private(set) var lastRefusal: DynamicInitializer.Refusal?
    /// After a refusal the dynamic initialiser is not tried again before this time: the next windows share most of
    /// the refused one's frames, and a try costs some 30 ms.
    private var nextDynamicTry_ns: TimestampNs?
    /// The dynamic tries' worker thread (nil: they run on the caller's thread).
    private let worker: DynamicInitializationWorker?
    /// CPU time the worker spent on the try whose outcome the last `tryInitialize` took, nanoseconds (0 if none).
    private(set) var lastWorkerCPU_ns: UInt64 = 0

    init(configuration: EstimatorConfiguration, cameras: [CameraCalibration], imu: IMUCalibration) {
        options = configuration.initializer
        staticInitializer = StaticInitializer(configuration: configuration, imu: imu)
        dynamicInitializer = DynamicInitializer(configuration: configuration, cameras: cameras, noise: imu.noise)
        worker = configuration.initializer.dynamicInitializationOnWorker ? DynamicInitializationWorker() : nil
    }

    /// Adds `frame` to the window and tries to initialise at its time (see the type's documentation).
    /// `disparity_px` is the frame's median image motion (nil: unknown); `movedOverBaseline` whether its tracks
    /// moved over the still-image baseline (`EstimatorConfiguration.stillImageBaseline_s`); `gyroBiasPrior` the dynamic
    /// initialiser's prior bias (zero at a cold start, the last estimate after a reset).
    mutating func tryInitialize(frame: FeatureFrame, disparity_px: Double?, movedOverBaseline: Bool = false, buffer: IMUBuffer, gyroBiasPrior: Vec3) -> Result? {
        lastRefusal = nil
        lastWorkerCPU_ns = 0
        window.append(DynamicInitializer.WindowFrame(t_ns: frame.t_ns, observations: frame.observations))
        let windowStart = frame.t_ns - Time.nanoseconds(options.dynamicWindow)
        window.removeAll { $0.t_ns < windowStart }
        // The try the previous frame started on the worker: had it run in place, that frame would have taken it.
        if let worker, let finished = worker.finish() {
            lastWorkerCPU_ns = finished.cpu_ns
            if let result = take(finished.outcome, windowEnd_ns: finished.windowEnd_ns) { return result }
        }
        // At rest (and a still image, when we can tell): the static initialiser.
        let stillImage = !movedOverBaseline && (disparity_px.map { $0 <= options.stillDisparity_px } ?? true)
        if stillImage, let ini = staticInitializer.initialize(samples: buffer.samples, endingAt: frame.t_ns) {
            return Result(state: ini.state, covariance: ini.covariance, method: .staticRest)
        }
        // In motion: visual-inertial alignment over the window.
        if options.dynamicInitialization, !stillImage, let oldest = window.first,
           Double(frame.t_ns - oldest.t_ns) * 1e-9 >= 0.9 * options.dynamicWindow,
           frame.t_ns >= nextDynamicTry_ns ?? frame.t_ns {
            if let worker {
                // Taken by the next frame, above.
                worker.start(dynamicInitializer, frames: window, buffer: buffer, gyroBias: gyroBiasPrior)
            } else {
                let outcome = dynamicInitializer.attempt(frames: window, buffer: buffer, gyroBias: gyroBiasPrior)
                if let result = take(outcome, windowEnd_ns: frame.t_ns) { return result }
            }
        }
        return nil
    }

    /// The initialisation a dynamic try's outcome gives (nil when it failed or was refused: a refusal is noted in
    /// `lastRefusal` and holds the next try back until `retryAfterRefusal_s` after the window's end).
    private mutating func take(_ outcome: DynamicInitializer.Outcome, windowEnd_ns: TimestampNs) -> Result? {
        switch outcome {
        case .initialized(let ini): return Result(state: ini.state, covariance: ini.covariance, method: .dynamicAlignment)
        case .refused(let refusal):
            lastRefusal = refusal
            nextDynamicTry_ns = windowEnd_ns + Time.nanoseconds(options.retryAfterRefusal_s)
        case .failed: break
        }
        return nil
    }

    /// Forgets the window and drops a dynamic try in flight (after a successful initialisation, or a reset).
    mutating func reset() { window.removeAll(); nextDynamicTry_ns = nil; worker?.cancel() }
}
