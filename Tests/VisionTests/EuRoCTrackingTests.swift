import Foundation
import Geometry
import Imaging
import Sensors
import Testing
import TestSupport
@testable import Vision

/// The tracker on the real EuRoC V1_01 snippet (camera nearly still).
struct EuRoCTrackingTests {
    /// Tracks the excerpt's left camera with the gyroscope; returns the frames, the fewest features in a frame, the
    /// largest step of a track between consecutive frames (pixels) and the tracks ended on still frames.
    static func trackExcerpt(options: FeatureTrackerOptions = FeatureTrackerOptions())
        throws -> (frames: Int, minFeatures: Int, maxStep: Double, endedOnStill: Int) {
        let path = try SharedDatasets.eurocMicro()
        let dataset = try ASLDataset(path: path)
        let camera = dataset.cameras[0]
        let tracker = try FeatureTracker(camera: camera.calibration, options: options)
        var gyro: [IMUSample] = []
        var lastPixel: [Int: Vec2] = [:]
        var frames = 0, maxStep = 0.0, minFeatures = Int.max, endedOnStill = 0
        for event in dataset.events(stereo: false) {
            switch event {
            case .imu(let s): gyro.append(s)
            case .frame(0, let frame):
                let image = try ImageCodec.decodeGray(contentsOf: frame.path)
                let result = try tracker.track(image, t_ns: frame.t_ns, gyroSamples: gyro)
                gyro = Array(gyro.suffix(2))
                minFeatures = min(minFeatures, result.features.count)
                endedOnStill += result.stats.rejectedOnStillFrame
                for f in result.features {
                    if let last = lastPixel[f.id] { maxStep = max(maxStep, (f.pixel - last).norm) }
                    // Normalised coordinates agree with the calibration.
                    #expect((camera.calibration.model.unproject(f.pixel)! - f.normalized).norm < 1e-9)
                }
                lastPixel = Dictionary(uniqueKeysWithValues: result.features.map { ($0.id, $0.pixel) })
                frames += 1
            default: break
            }
        }
        #expect(frames == camera.frames.count)
        return (frames, minFeatures, maxStep, endedOnStill)
    }

    @Test(.enabled(if: SharedDatasets.eurocMicroIsPresent, "needs ../shared/datasets/euroc-v101-micro"))
    func manyFeaturesAndNoJumpsOnEuRoC() throws {
        // Issue 4: at least 100 live features in every frame; the camera barely moves, so no track
        // may move more than 3 px between consecutive frames (a larger step is a KLT jump).
        let run = try Self.trackExcerpt()
        #expect(run.minFeatures >= 100)
        #expect(run.maxStep <= 3, "largest step \(run.maxStep) px")
        #expect(run.endedOnStill > 0)
        // Without the still-frame test a track born at (675, 221) in frame 25 moves 13 px in frame 26 onto a
        // look-alike (forward and back alike) while every other track moves less than 1 px, and the epipolar RANSAC,
        // on a baseline near zero, keeps it. Which corners are tracked decides whether one lands on such a place (the
        // appearance check's ending of tracks changed that here; without it the same happens with 250 or 300
        // features, or a FAST threshold of 15).
        var unguardedOptions = FeatureTrackerOptions()
        unguardedOptions.stillFrameMaxMotionPx = nil
        let unguarded = try Self.trackExcerpt(options: unguardedOptions)
        #expect(unguarded.maxStep > 3, "\(unguarded)")
    }

    @Test(.enabled(if: SharedDatasets.eurocMicroIsPresent, "needs ../shared/datasets/euroc-v101-micro"))
    func stereoMatchesOnEuRoCSatisfyTheEpipolarConstraint() throws {
        let path = try SharedDatasets.eurocMicro()
        let dataset = try ASLDataset(path: path)
        let left = dataset.cameras[0].calibration, right = dataset.cameras[1].calibration
        let tracker = try FeatureTracker(camera: left, rightCamera: right)
        let T_C1_C0 = right.T_B_C.inverse * left.T_B_C
        let E = T_C1_C0.translation.skew * T_C1_C0.rotation.matrix
        let focal = 0.5 * (right.model.intrinsics.fx + right.model.intrinsics.fy)
        var matched = 0, total = 0
        for event in dataset.events(stereo: true).prefix(400) {
            guard case .stereoFrame(let l, let r) = event else { continue }
            let result = try tracker.track(try ImageCodec.decodeGray(contentsOf: l.path), right: try ImageCodec.decodeGray(contentsOf: r.path),
                                           t_ns: l.t_ns)
            total += result.features.count
            for f in result.features {
                guard let xr = f.rightNormalized else { continue }
                matched += 1
                // |x_rᵀ E x_l| over the epipolar line's normal: the point-to-line distance in the
                // right image, which the matcher bounds by 1.5 px (divided by the mean focal length).
                let l = E * Vec3(f.normalized.x, f.normalized.y, 1)
                let d = abs(l.dot(Vec3(xr.x, xr.y, 1))) / (l.x * l.x + l.y * l.y).squareRoot()
                #expect(d * focal <= 1.5 + 1e-9)
            }
        }
        // EuRoC's cameras differ in exposure (compensated by a global gain); most features match.
        #expect(total > 0 && Double(matched) / Double(total) >= 0.5, "\(matched)/\(total)")
    }
}
