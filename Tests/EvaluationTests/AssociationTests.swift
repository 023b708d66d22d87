import Foundation
import Geometry
import Sensors
import Testing
@testable import Evaluation

@Suite struct AssociationTests {
    @Test func interpolatesDenseGroundTruthAtEstimateTimes() throws {
        // Ground truth at 200 Hz, estimate at 20 Hz half-way between ground-truth samples (2.5 ms off).
        let gt = Synthetic.trajectory(rate_hz: 200, duration: 10)
        let est = Synthetic.trajectory(rate_hz: 20, duration: 9.9, offset_ns: 2_500_000)
        let pairs = Association.associate(estimate: est, groundTruth: gt, mode: .interpolate)
        #expect(pairs.count == est.count)
        var worstPosition = 0.0, worstAngle = 0.0
        for pair in pairs {
            let truth = Synthetic.pose(at: Time.seconds(pair.t_ns))
            worstPosition = max(worstPosition, (pair.groundTruth.translation - truth.translation).norm)
            worstAngle = max(worstAngle, (pair.groundTruth.rotation.inverse * truth.rotation).angle)
        }
        // Linear interpolation over 5 ms errs by ≤ h²/8·|a| = 3e-6·|a| with |a| < 2 m/s² here: 1e-5 m bound.
        // Slerp errs similarly for angular acceleration < 0.2 rad/s²: 1e-6 rad bound.
        #expect(worstPosition < 1e-5)
        #expect(worstAngle < 1e-6)
        // Nearest takes the sample 2.5 ms away: the error is speed × 2.5 ms (speed ≈ 1 m/s: millimetres).
        let nearest = Association.associate(estimate: est, groundTruth: gt, mode: .nearest)
        let nearestWorst = nearest.map { ($0.groundTruth.translation - Synthetic.pose(at: Time.seconds($0.t_ns)).translation).norm }.max() ?? 0
        #expect(nearestWorst > 1e-4)
        #expect(nearestWorst < 5e-3)
    }

    @Test func dropsEstimatesWithoutGroundTruthWithinMaxDt() {
        let gt = Synthetic.trajectory(rate_hz: 10, duration: 5)  // 0 … 5 s every 100 ms
        let times: [Int64] = [-20_000_000, -10_000_000, 0, 50_000_000, 130_000_000, 5_010_000_000, 5_011_000_000]
        let est = times.map { StampedPose(t_ns: $0, pose: .identity) }
        let pairs = Association.associate(estimate: est, groundTruth: gt, maxDt_ns: 10_000_000, mode: .interpolate)
        // −10 ms and 5.010 s are exactly max-dt from a sample (kept); −20 ms, 50 ms (mid-gap of a sparse
        // ground truth: no interpolation across 100 ms) and 5.011 s are not.
        #expect(pairs.map(\.t_ns) == [-10_000_000, 0, 5_010_000_000])
        // 130 ms: nearest sample 100 ms is 30 ms away → dropped as well.
    }

    @Test func exactTimestampsUseTheSampleItself() {
        let gt = Synthetic.trajectory(rate_hz: 100, duration: 2)
        let est = Array(gt[5...50])
        for mode in AssociationMode.allCases {
            let pairs = Association.associate(estimate: est, groundTruth: gt, mode: mode)
            #expect(pairs.count == est.count)
            #expect(zip(pairs, est).allSatisfy { $0.groundTruth == $1.pose })
        }
    }

    @Test func noOverlapIsAClearError() {
        let gt = Synthetic.trajectory(rate_hz: 10, duration: 5)
        let est = Synthetic.trajectory(rate_hz: 10, duration: 5, start: 100)
        #expect(throws: EvaluationError.self) { try Evaluator.evaluate(estimate: est, groundTruth: gt) }
        do { _ = try Evaluator.evaluate(estimate: est, groundTruth: gt) } catch {
            #expect("\(error)".contains("no estimated pose has ground truth within 0.010 s"))
        }
    }

    @Test func interpolationHelperHitsEndpointsAndMidpoint() {
        let a = SE3(rotation: SO3(angle: 0.2, axis: Vec3(0, 0, 1)), translation: Vec3(0, 0, 0))
        let b = SE3(rotation: SO3(angle: 1.0, axis: Vec3(0, 0, 1)), translation: Vec3(2, 4, 6))
        let mid = PoseInterpolation.interpolate(a, b, fraction: 0.5)
        #expect((mid.translation - Vec3(1, 2, 3)).norm < 1e-15)
        #expect(abs((SO3(angle: 0.6, axis: Vec3(0, 0, 1)).inverse * mid.rotation).angle) < 1e-12)
        #expect((PoseInterpolation.interpolate(a, b, fraction: 1).rotation.inverse * b.rotation).angle < 1e-12)
    }
}
