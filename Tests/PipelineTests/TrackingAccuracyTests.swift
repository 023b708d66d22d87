import Estimation
import Evaluation
import Foundation
import Geometry
import Pipeline
import Sensors
import Testing
import TestSupport

/// Whole-pipeline accuracy on rendered simulated sequences (images through the real frontend, IMU with
/// noise and biases) against the simulator's exact ground truth.
/// These simulate and track whole 60 s sequences: run them on a release build (README's test command).
@Suite("Tracking accuracy (simulated room, whole pipeline)")
struct TrackingAccuracyTests {
    /// Runs the pipeline and returns its frame results and the posyaw ATE report.
    static func track(_ path: String, stereo: Bool = false) throws -> (frames: [PipelineFrameResult], summary: PipelineSummary, report: EvaluationReport) {
        let dataset = try ASLDataset(path: path)
        var options = PipelineOptions()
        options.stereo = stereo
        var frames: [PipelineFrameResult] = []
        let summary = try TrackingPipeline(dataset: dataset, options: options).run(onFrame: { frames.append($0) })
        let groundTruth = try TrajectoryLoader.load(path: path).poses
        let report = try Evaluator.evaluate(estimate: summary.bodyTrajectory, groundTruth: groundTruth,
                                            options: EvaluationOptions(alignment: .posyaw))
        return (frames, summary, report)
    }

    /// Share of frames after the first `normal` one that are `normal` again.
    static func completenessAfterInit(_ frames: [PipelineFrameResult]) -> Double {
        guard let first = frames.firstIndex(where: { $0.estimate.trackingState == .normal }) else { return 0 }
        let after = frames[first...]
        return Double(after.filter { $0.estimate.trackingState == .normal }.count) / Double(after.count)
    }

    static func allFinite(_ frames: [PipelineFrameResult]) -> Bool {
        frames.allSatisfy { f in
            f.estimate.T_W_B.translation.isFinite && f.estimate.v_W.isFinite && f.estimate.T_W_C.translation.isFinite
                && [f.estimate.T_W_B.rotation.quaternion.w, f.estimate.T_W_B.rotation.quaternion.x].allSatisfy(\.isFinite)
        }
    }

    // The limits are a few millimetres, an order of magnitude inside the accuracy the engine is meant to
    // deliver (5 cm mono, 3 cm stereo, 8 cm from a moving start), so a real regression (a broken update, a
    // wrong Jacobian, a bad initialisation, map reuse no longer holding the drift) fails them while the
    // seeds' noise does not.

    @Test("60 s handheld from rest, mono + IMU: ATE ≤ 6 mm, ≥ 99 % normal after initialisation")
    func restStartMono() throws {
        let path = try SimSequenceCache.roomHandheld(seconds: 60, seed: 14, stereo: true)
        let (frames, summary, report) = try Self.track(path)
        print("mono from rest: ATE RMSE \(report.ate.position.rmse) m, normal after \(summary.secondsToNormal ?? -1) s")
        #expect(frames.count == 1201)
        // 6 mm: the filter alone, without map reuse, drifts past it on this walk.
        #expect(report.ate.position.rmse <= 0.006)
        #expect(Self.completenessAfterInit(frames) >= 0.99)
        #expect(Self.allFinite(frames))
        // Rest start: the static initialiser needs about 1 s of stillness; it must not wait for the motion.
        #expect((summary.secondsToNormal ?? .infinity) <= 1.9)
    }

    @Test("60 s handheld from rest, stereo + IMU: ATE ≤ 4 mm")
    func restStartStereo() throws {
        let path = try SimSequenceCache.roomHandheld(seconds: 60, seed: 14, stereo: true)
        let (frames, _, report) = try Self.track(path, stereo: true)
        print("stereo from rest: ATE RMSE \(report.ate.position.rmse) m")
        // 4 mm: stereo halves mono's error; without map reuse it drifts past this.
        #expect(report.ate.position.rmse <= 0.004)
        #expect(Self.completenessAfterInit(frames) >= 0.99)
        #expect(Self.allFinite(frames))
    }

    @Test("60 s handheld starting in motion: normal within 2 s, ATE ≤ 6.5 mm")
    func movingStart() throws {
        let path = try SimSequenceCache.roomHandheld(seconds: 60, seed: 12, startMoving: true)
        let (frames, summary, report) = try Self.track(path)
        print("moving start: normal after \(summary.secondsToNormal ?? -1) s, ATE RMSE \(report.ate.position.rmse) m")
        #expect((summary.secondsToNormal ?? .infinity) <= 2.0)
        // 6.5 mm: the simulated gyro's bias is 0.09 rad/s; the dynamic initialisation must estimate it (kept at
        // the prior, the filter needs seconds to learn it and the error is well above this).
        #expect(report.ate.position.rmse <= 0.0065)
        #expect(Self.completenessAfterInit(frames) >= 0.99)
        #expect(Self.allFinite(frames))
    }

    @Test("2 s fast shake: excessiveMotion or no loss, normal again within 3 s after it ends, no NaN")
    func fastShake() throws {
        let shakeStart = 12.0, shakeEnd = 14.0
        let path = try SimSequenceCache.roomHandheld(seconds: 24, seed: 13, shakeAt: shakeStart)
        let (frames, _, report) = try Self.track(path)
        let t0 = frames[0].estimate.t_ns
        func t(_ f: PipelineFrameResult) -> Double { Time.seconds(f.estimate.t_ns - t0) }
        #expect(Self.allFinite(frames))
        // Normal before the shake (so the check is meaningful) …
        #expect(frames.filter { t($0) > 5 && t($0) < shakeStart }.allSatisfy { $0.estimate.trackingState == .normal })
        // … and normal at every frame from 3 s after the shake to the end.
        let recovered = frames.filter { t($0) >= shakeEnd + 3 }
        #expect(!recovered.isEmpty)
        #expect(recovered.allSatisfy { $0.estimate.trackingState == .normal })
        // The shake must not wreck the trajectory either.
        #expect(report.ate.position.rmse <= 0.08)
        print("shake: ATE RMSE \(report.ate.position.rmse) m; states \(Set(frames.map { $0.estimate.trackingState.description }))")
    }
}

/// The real EuRoC V1_01 excerpt (nearly still): static initialisation, no drift at rest, roll/pitch.
@Suite("Tracking on real data (EuRoC V1_01 excerpt)")
struct EuRoCTrackingTests {
    @Test("initialises from rest; drift ≤ 1 cm over 4.7 s; roll/pitch (tilt) error against ground truth", .enabled(if: SharedDatasets.eurocMicroIsPresent, "needs ../shared/datasets/euroc-v101-micro"))
    func staticStart() throws {
        let path = try SharedDatasets.eurocMicro()
        let (frames, summary, _) = try TrackingAccuracyTests.track(path)
        #expect(frames.count == 95)
        let normal = frames.filter { $0.estimate.trackingState == .normal }
        #expect(normal.count >= 70)   // 95 frames, about 1 s of them spent initialising
        #expect((summary.secondsToNormal ?? .infinity) <= 1.5)
        let groundTruth = try TrajectoryFile.readASLGroundTruth(path: path + "/mav0/state_groundtruth_estimate0/data.csv")
        func gt(_ t: TimestampNs) -> GroundTruthState? {
            groundTruth.min { abs($0.t_ns - t) < abs($1.t_ns - t) }.flatMap { abs($0.t_ns - t) < 5_000_000 ? $0 : nil }
        }
        // Drift: the estimated displacement since the first normal frame against the true one.
        let first = try #require(normal.first), last = try #require(normal.last)
        let g0 = try #require(gt(first.estimate.t_ns)), g1 = try #require(gt(last.estimate.t_ns))
        let estimated = (last.estimate.T_W_B.translation - first.estimate.T_W_B.translation).norm
        let truth = (g1.T_W_B.translation - g0.T_W_B.translation).norm
        print("EuRoC micro: estimated displacement \(estimated) m, true \(truth) m")
        #expect(abs(estimated - truth) <= 0.01)
        // Roll and pitch: compared as the tilt error, the angle between the estimated and the true
        // gravity direction in the body frame (R_W_Bᵀ e_z). It does not depend on the world's yaw and,
        // unlike ZYX Euler roll, is not inflated near |pitch| = 90° (this sequence sits at pitch ≈ −67°).
        var worst = 0.0
        for f in normal {
            let g = try #require(gt(f.estimate.t_ns))
            let upEstimated = f.estimate.T_W_B.rotation.inverse.act(Vec3(0, 0, 1))
            let upTrue = g.T_W_B.rotation.inverse.act(Vec3(0, 0, 1))
            worst = max(worst, acos(min(1, upEstimated.dot(upTrue))))
        }
        let worstDeg = worst * 180 / .pi
        print("EuRoC micro: worst tilt (roll/pitch) error \(worstDeg)°")
        #expect(worstDeg <= 1.0)
        // The 0.5° target is not reachable from a static start on this excerpt: the data itself puts gravity
        // 0.57° from the ground truth's up while the body is still (`gravityAtRestDisagreesWithGroundTruth`).
        withKnownIssue("tilt error on the EuRoC V1_01 excerpt is above the 0.5° target") {
            #expect(worstDeg <= 0.5)
        }
    }

    /// Why 0.5° of roll/pitch cannot be reached on this excerpt from a static start: the mean specific force
    /// measured while the body is still is the only information on gravity's direction, and it disagrees with
    /// the ground truth's up by more than 0.5° — 0.37° of it is the accelerometer bias (the ground truth's own
    /// estimate, [-0.018, 0.066, 0.031] m/s²), which no estimator can separate from tilt without motion.
    @Test("the specific force at rest points more than 0.5° away from the ground truth's up", .enabled(if: SharedDatasets.eurocMicroIsPresent, "needs ../shared/datasets/euroc-v101-micro"))
    func gravityAtRestDisagreesWithGroundTruth() throws {
        let path = try SharedDatasets.eurocMicro()
        let dataset = try ASLDataset(path: path)
        let groundTruth = try TrajectoryFile.readASLGroundTruth(path: path + "/mav0/state_groundtruth_estimate0/data.csv")
        let first = try #require(groundTruth.first)
        let still = dataset.imu.samples(from: first.t_ns, to: first.t_ns + 1_000_000_000)
        #expect(still.count >= 190)
        let meanAccel_B = still.reduce(Vec3.zero) { $0 + $1.accel_B } / Double(still.count)
        let upTrue_B = first.T_W_B.rotation.inverse.act(Vec3(0, 0, 1))
        let angleDeg = acos(min(1, meanAccel_B.normalized.dot(upTrue_B))) * 180 / .pi
        print("EuRoC micro: mean specific force over the first second vs ground-truth up: \(angleDeg)°")
        #expect(angleDeg > 0.5 && angleDeg < 0.7)
    }
}
