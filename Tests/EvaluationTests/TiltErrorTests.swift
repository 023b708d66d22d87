import Foundation
import Geometry
import Sensors
import Testing
@testable import Evaluation

/// The tilt error (`TiltError`): the estimate's vertical against the ground truth's, in the body frame.
@Suite struct TiltErrorTests {
    static let gt = Synthetic.trajectory(rate_hz: 20, duration: 30)

    @Test func aWorldTurnedInYawAndShiftedHasNoTilt() throws {
        // The estimate's world is the ground truth's turned 70° about z and moved: its vertical is the same.
        let est = Synthetic.transformed(Self.gt, by: SimilarityTransform(rotation: SO3(angle: 70 * Double.pi / 180, axis: Vec3(0, 0, 1)),
                                                                          translation: Vec3(3, -2, 0.5)))
        let report = try Evaluator.evaluate(estimate: est, groundTruth: Self.gt)
        #expect(report.tilt.errors_deg.count == report.pairs.count)
        #expect(report.tilt.statistics.max < 1e-6)
        // The rotation ATE after posyaw is zero too here; the tilt row does not depend on it.
        #expect(report.ate.rotation.max < 1e-6)
    }

    @Test func aWorldTiltedHalfADegreeHasThatTiltOnEveryPoseWhateverTheAlignment() throws {
        // The estimate's world is tilted 0.5° about a horizontal axis: every body sees its vertical 0.5° off.
        let tilt = 0.5 * Double.pi / 180
        let est = Synthetic.transformed(Self.gt, by: SimilarityTransform(rotation: SO3(angle: tilt, axis: Vec3(1, 1, 0).normalized)))
        for method in AlignmentMethod.allCases {
            let report = try Evaluator.evaluate(estimate: est, groundTruth: Self.gt, options: EvaluationOptions(alignment: method))
            #expect(abs(report.tilt.statistics.min - 0.5) < 1e-6 && abs(report.tilt.statistics.max - 0.5) < 1e-6, "\(method)")
            let summary = EvaluationSummary(report)
            #expect(abs(summary.tilt_median_deg - 0.5) < 1e-6)
        }
        // SE(3) aligns the tilt away from the rotation ATE; the tilt error keeps it (it is measured against the vertical).
        let se3 = try Evaluator.evaluate(estimate: est, groundTruth: Self.gt, options: EvaluationOptions(alignment: .se3))
        #expect(se3.ate.rotation.max < 1e-6)
    }

    @Test func againstGravityATiltOfTheGroundTruthsFrameDoesNotCount() throws {
        // The ground truth's world is 0.3° off gravity (as EuRoC's is 0.24°); a perfect visual-inertial estimate has its
        // world on gravity: as given it shows the frame's 0.3° on every pose, levelled by the gravity its IMU measures
        // almost nothing.
        let tilt = 0.3 * Double.pi / 180
        let R_W_L = SO3(angle: tilt, axis: Vec3(1, 2, 0).normalized)   // the level world L seen from the tilted W
        let (truth, imu) = GroundTruthGravityTests.flight(gravity_W: R_W_L.act(Vec3(0, 0, -9.81)), accelBias_B: Vec3(0.05, -0.07, 0.03),
                                                          biasInGroundTruth: true)
        let gravity = try GroundTruthGravity.measure(groundTruth: truth, imu: imu)
        let pairs = truth.enumerated().filter { $0.offset % 10 == 0 }.map { _, s in
            AssociatedPair(t_ns: s.t_ns, estimate: SE3(rotation: R_W_L.inverse * s.T_W_B.rotation, translation: s.T_W_B.translation),
                           groundTruth: s.T_W_B)
        }
        let asGiven = TiltError(pairs: pairs).statistics, levelled = TiltError(pairs: pairs, levelledBy: gravity).statistics
        #expect(abs(asGiven.min - 0.3) < 1e-6 && abs(asGiven.max - 0.3) < 1e-6)
        #expect(levelled.max < 0.01, "\(levelled)")
    }

    @Test func aRollErrorOfTheBodyIsATiltAndAYawErrorIsNot() throws {
        // An error about the body's own axis that is vertical at that moment leaves the vertical alone; about a
        // horizontal one it tilts it by the full angle.
        let angle = 0.3 * Double.pi / 180
        let gt = (0..<100).map { k in
            StampedPose(t_ns: Int64(k) * 50_000_000, pose: SE3(rotation: SO3(angle: 0.02 * Double(k), axis: Vec3(0, 0, 1)),
                                                               translation: Vec3(0.05 * Double(k), 0.3 * sin(0.1 * Double(k)), 1)))
        }
        func tilt(about axis_B: Vec3) throws -> ErrorStatistics {
            let est = gt.map { StampedPose(t_ns: $0.t_ns, pose: SE3(rotation: $0.pose.rotation * SO3(angle: angle, axis: axis_B),
                                                                     translation: $0.pose.translation)) }
            return try Evaluator.evaluate(estimate: est, groundTruth: gt).tilt.statistics
        }
        #expect(try tilt(about: Vec3(0, 0, 1)).max < 1e-6)
        let roll = try tilt(about: Vec3(1, 0, 0))
        #expect(abs(roll.min - 0.3) < 1e-6 && abs(roll.max - 0.3) < 1e-6)
    }
}
