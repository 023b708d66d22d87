import Foundation
import Geometry
import Sensors
import Testing
import TestSupport
@testable import Evaluation

@Suite struct EuRoCEvaluationTests {
    @Test(.enabled(if: SharedDatasets.eurocMicroIsPresent, "needs ../shared/datasets/euroc-v101-micro"))
    func groundTruthThroughTUMAndAYawShiftIsRecovered() throws {
        let gt = try TrajectoryLoader.load(path: try SharedDatasets.eurocMicro())
        #expect(gt.format == .aslGroundTruth)
        // An "estimate": every 4th ground-truth pose, in a frame turned 40° about gravity and shifted,
        // half a sample late (interpolation needed), written to and read back from TUM.
        let yawFrame = SimilarityTransform(rotation: SO3(angle: 40 * .pi / 180, axis: Vec3(0, 0, 1)), translation: Vec3(-3, 1, 0.2))
        let late = stride(from: 0, to: gt.poses.count - 1, by: 4).map { k -> StampedPose in
            let a = gt.poses[k], b = gt.poses[k + 1]
            let t = (a.t_ns + b.t_ns) / 2
            return StampedPose(t_ns: t, pose: yawFrame.act(PoseInterpolation.interpolate(a.pose, at: a.t_ns, b.pose, at: b.t_ns, time: t)))
        }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("est.tum").path
        try TrajectoryFile.writeTUM(late, to: path)
        let est = try TrajectoryLoader.load(path: path)
        #expect(est.format == .tum)
        let gap_ns = gt.poses[1].t_ns - gt.poses[0].t_ns
        let report = try Evaluator.evaluate(estimate: est.poses, groundTruth: gt.poses,
                                            options: EvaluationOptions(alignment: .posyaw, maxDt_ns: gap_ns))
        #expect(report.pairs.count == late.count)
        // Interpolation reproduces the same midpoint pose: only rounding remains (1e-9 m).
        #expect(report.ate.position.rmse < 1e-9)
        #expect(abs((report.sim3Scale ?? 0) - 1) < 1e-9)
        // The estimate ends within one 4-sample stride of the ground truth's end.
        #expect(report.completeness > 0.99)
    }
}
