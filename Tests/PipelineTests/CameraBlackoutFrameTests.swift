import Evaluation
import Foundation
import Pipeline
import Sensors
import Testing
import TestSupport

/// A 1.5 s black-out of the camera (no frames; the IMU goes on) in the simulated room: the poses after it must be in
/// the world frame of before it — the frame the posyaw alignment of the poses before the gap defines — within 5 cm,
/// not in a new one. The estimator bridges the gap on the IMU (`limited(sensorGap)`) and the map reuse re-anchors
/// position and heading on the points mapped before it.
@Suite("Camera black-out: the world frame continues (simulated room, whole pipeline)")
struct CameraBlackoutFrameTests {
    static func poses(_ path: String, start_s: Double? = nil) throws -> [StampedPose] {
        var options = PipelineOptions()
        options.start_s = start_s
        return try TrackingPipeline(dataset: try ASLDataset(path: path), options: options).run().bodyTrajectory
    }

    @Test("1.5 s without frames at 12 s of 20 s: poses after it within 5 cm RMSE of the truth in the frame of before it")
    func frameContinues() throws {
        let original = try SimSequenceCache.roomHandheld(seconds: 20, seed: 5)
        let gapStart = 12.0, gapEnd = 13.5
        let gapped = try SensorGapTests.copy(original, removing: "cam0", from: gapStart, to: gapEnd)
        let t0 = try #require(try ASLDataset(path: original).cameras[0].frames.first?.t_ns)
        let truth = try TrajectoryLoader.load(path: original).poses
        let poses = try Self.poses(gapped)
        let before = poses.filter { Time.seconds($0.t_ns - t0) < gapStart }
        let after = poses.filter { Time.seconds($0.t_ns - t0) >= gapEnd }
        var fixed = EvaluationOptions()
        fixed.fixedAlignment = try Evaluator.evaluate(estimate: before, groundTruth: truth).transform
        let afterError = try Evaluator.evaluate(estimate: after, groundTruth: truth, options: fixed).ate.position
        // Control: a run that starts after the gap has a frame of its own, far from the first one.
        let fresh = try Self.poses(original, start_s: gapEnd)
        let freshError = try Evaluator.evaluate(estimate: fresh, groundTruth: truth, options: fixed).ate.position.rmse
        print(String(format: "camera black-out %.1f–%.1f s: %d poses after it, RMSE %.4f m (max %.4f) in the frame of before it; a run started after it: %.3f m",
                     gapStart, gapEnd, after.count, afterError.rmse, afterError.max, freshError))
        #expect(after.count >= 100)
        #expect(afterError.rmse < 0.05)
        #expect(freshError > 0.05)
    }
}
