import Foundation
import Imaging
import Pipeline
import Sensors
import Vision

/// The floor of the frontend's stages on this machine: what the library calls alone cost per frame, with the
/// frontend's settings and nothing around them. Over consecutive cam0 frames of a dataset it times, in CPU time
/// of this thread (OpenCV on one thread), the PNG decode of one image; one KLT pyramid (with derivatives, as the
/// tracker builds it); and the tracker's KLT calls for the same points the frontend tracks (forward on all levels
/// from the gyro-free previous positions, then back on two levels). The gap between these and the pipeline's
/// decode and frontend rows is what the code around them costs.
struct FloorFigures: Codable, CustomStringConvertible {
    var dataset: String
    var frames: Int
    var decodeMedian_ms: Double
    var pyramidMedian_ms: Double
    var kltMedian_ms: Double
    var pointsMean: Double

    var description: String {
        String(format: "floor on %@ (%d frames, CPU ms per frame, median): PNG decode %.3f, one pyramid %.3f, KLT forward + back of %.0f points %.3f; pyramid + KLT %.3f",
               dataset, frames, decodeMedian_ms, pyramidMedian_ms, pointsMean, kltMedian_ms, pyramidMedian_ms + kltMedian_ms)
    }

    static func run(datasetPath: String, frames: Int) throws -> FloorFigures {
        try OpenCVRuntime.setThreadCount(1)
        let dataset = try ASLDataset(path: datasetPath)
        guard let camera = dataset.cameras.first, camera.frames.count >= 2 else {
            throw PipelineError.badInput("\(datasetPath): need at least 2 cam0 frames")
        }
        let options = FeatureTrackerOptions()
        let tracker = try FeatureTracker(camera: camera.calibration, options: options)
        let forward = OpticalFlow.Parameters(windowSize: options.kltWindow, maxLevel: options.kltLevels,
                                             maxIterations: options.kltMaxIterations, epsilon: options.kltEpsilon,
                                             minEigenvalueThreshold: options.kltMinEigenvalue)
        var back = forward
        back.maxLevel = min(forward.maxLevel, 1)
        let clock = StageProfiler()
        var decode: [Double] = [], pyramid: [Double] = [], klt: [Double] = [], points = 0
        var previous: (ImagePyramid, [SIMD2<Float>])?
        for ref in camera.frames.prefix(frames + 1) {
            var t = clock.now()
            let image = try ImageCodec.decodeGray(contentsOf: ref.path)
            decode.append(Double(clock.now() &- t) * 1e-6)
            t = clock.now()
            let levels = try ImagePyramid(image, windowSize: options.kltWindow, maxLevel: options.kltLevels)
            pyramid.append(Double(clock.now() &- t) * 1e-6)
            if let (prev, pts) = previous, !pts.isEmpty {
                t = clock.now()
                let ahead = try OpticalFlow.track(from: prev, to: levels, points: pts, initialGuesses: nil, parameters: forward)
                _ = try OpticalFlow.track(from: levels, to: prev, points: ahead.map(\.position), initialGuesses: pts,
                                          parameters: back)
                klt.append(Double(clock.now() &- t) * 1e-6)
                points += pts.count
            }
            // The frontend's own tracks on this frame are the points the next frame's KLT follows.
            let result = try tracker.track(image, t_ns: ref.t_ns)
            previous = (levels, result.features.map { SIMD2(Float($0.pixel.x), Float($0.pixel.y)) })
        }
        func median(_ v: [Double]) -> Double { let s = v.sorted(); return s.isEmpty ? .nan : s[s.count / 2] }
        return FloorFigures(dataset: datasetPath, frames: klt.count, decodeMedian_ms: median(decode),
                            pyramidMedian_ms: median(pyramid), kltMedian_ms: median(klt),
                            pointsMean: Double(points) / Double(max(1, klt.count)))
    }
}
