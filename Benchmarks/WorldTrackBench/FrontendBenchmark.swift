import Foundation
import Imaging
import Sensors
import Vision

/// Timings of the feature frontend over a dataset's cam0 frames, milliseconds per frame.
///
/// Times are CPU time of the tracking thread (OpenCV set to one thread), so they measure one core's
/// work even on a busy machine; the wall-clock median is given beside them. Image decoding and the
/// warm-up frames are excluded.
struct FrontendBenchmarkResult: CustomStringConvertible {
    /// Frames timed (after warm-up).
    var frames: Int = 0
    /// Median, 90th percentile and largest CPU time per frame, ms.
    var medianMs: Double = 0, p90Ms: Double = 0, maxMs: Double = 0
    /// Median wall-clock time per frame, ms (inflated when other processes compete for the cores).
    var wallMedianMs: Double = 0
    /// Mean live features per timed frame.
    var featuresMean: Double = 0
    /// Image size and feature budget of the run.
    var width: Int = 0, height: Int = 0, budget: Int = 0
    /// Why the benchmark could not run, when it could not.
    var error: String?

    var description: String {
        if let error { return "frontend: error: \(error)" }
        return String(format: "frontend (mono %dx%d, budget %d, 1 thread): %d frames, median %.2f ms, p90 %.2f ms, max %.2f ms CPU per frame (wall median %.2f ms), %.1f features/frame",
                      width, height, budget, frames, medianMs, p90Ms, maxMs, wallMedianMs, featuresMean)
    }
}

/// Runs `FeatureTracker` (default options, 200-feature budget, gyro prediction) over up to `frames`
/// cam0 frames of the ASL dataset at `datasetPath` after 10 warm-up frames (tracked, not timed),
/// prints and returns the timings. Errors are reported in the result (and printed), not thrown.
func runFrontendBenchmark(datasetPath: String, frames: Int) -> FrontendBenchmarkResult {
    var result = FrontendBenchmarkResult()
    do {
        try OpenCVRuntime.setThreadCount(1)
        let dataset = try ASLDataset(path: datasetPath)
        guard let camera = dataset.cameras.first else { throw VisionError.invalidImage("\(datasetPath): no camera") }
        let warmUp = 10
        let wanted = min(camera.frames.count, max(frames, 0) + warmUp)
        guard wanted > warmUp else {
            throw VisionError.invalidImage("\(datasetPath): \(camera.frames.count) frames, need more than \(warmUp) warm-up frames")
        }
        // Decode first (excluded from timing), with each frame's gyro samples since the previous one.
        let refs = Array(camera.frames.prefix(wanted))
        let images = try refs.map { try ImageCodec.decodeGray(contentsOf: $0.path) }
        let samples = dataset.imu.samples
        let tracker = try FeatureTracker(camera: camera.calibration)
        result.width = camera.calibration.model.width; result.height = camera.calibration.model.height
        result.budget = tracker.options.featureBudget
        var cpu: [Double] = [], wall: [Double] = [], features = 0
        var s = 0
        for (k, ref) in refs.enumerated() {
            let from = k > 0 ? refs[k - 1].t_ns : ref.t_ns
            while s + 1 < samples.count && samples[s + 1].t_ns <= from { s += 1 }
            var e = s
            while e < samples.count && samples[e].t_ns <= ref.t_ns { e += 1 }
            let gyro = Array(samples[s..<e])
            let c0 = benchThreadCPUNanoseconds(), w0 = DispatchTime.now().uptimeNanoseconds
            let frame = try tracker.track(images[k], t_ns: ref.t_ns, gyroSamples: gyro)
            let c1 = benchThreadCPUNanoseconds(), w1 = DispatchTime.now().uptimeNanoseconds
            guard k >= warmUp else { continue }
            cpu.append(Double(c1 - c0) / 1e6); wall.append(Double(w1 - w0) / 1e6)
            features += frame.features.count
        }
        let sorted = cpu.sorted()
        result.frames = sorted.count
        result.medianMs = sorted[sorted.count / 2]
        result.p90Ms = sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
        result.maxMs = sorted.last ?? 0
        result.wallMedianMs = wall.sorted()[wall.count / 2]
        result.featuresMean = Double(features) / Double(sorted.count)
    } catch {
        result.error = "\(error)"
    }
    print(result)
    return result
}

/// CPU time used by the calling thread, nanoseconds.
private func benchThreadCPUNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
