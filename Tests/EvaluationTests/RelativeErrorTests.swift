import Foundation
import Geometry
import Sensors
import Testing
@testable import Evaluation

@Suite struct RelativeErrorTests {
    /// A straight line along x at 1 m/s, 100 s, 10 Hz, with a fixed orientation.
    let line: [StampedPose] = (0...1000).map { k in
        StampedPose(t_ns: Int64(k) * 100_000_000,
                    pose: SE3(rotation: SO3(angle: 0.3, axis: Vec3(0, 1, 0)), translation: Vec3(0.1 * Double(k), 0, 1)))
    }

    @Test func constantScaleDriftGivesConstantRelativeError() throws {
        // The estimate travels 2 % too far: every sub-trajectory of length L errs by exactly 0.02 L.
        let est = line.map { p in
            StampedPose(t_ns: p.t_ns, pose: SE3(rotation: p.pose.rotation,
                                                translation: Vec3(1.02 * p.pose.translation.x, 0, 1)))
        }
        let report = try Evaluator.evaluate(estimate: est, groundTruth: line,
                                            options: EvaluationOptions(alignment: .none, segments: .metres([10, 25])))
        #expect(report.rpe.count == 2)
        for segment in report.rpe {
            // Start poses with at least L of path left: (100 − L)/0.1 + 1.
            #expect(segment.translation.count == Int(((100 - segment.length_m) / 0.1).rounded()) + 1)
            // 1e-9 m: the distances are sums of 0.1 m steps, exact to rounding.
            #expect(segment.translationErrors_m.allSatisfy { abs($0 - 0.02 * segment.length_m) < 1e-9 })
            #expect(segment.translationErrors_pct.allSatisfy { abs($0 - 2) < 1e-7 })
            #expect(segment.rotation.max < 1e-9)
        }
    }

    @Test func constantYawDriftGivesRotationError() throws {
        // Yaw drifts by 0.1° per metre travelled; over 20 m the relative rotation error is 2°.
        let est = line.map { p -> StampedPose in
            let yaw = 0.1 * .pi / 180 * p.pose.translation.x
            return StampedPose(t_ns: p.t_ns, pose: SE3(rotation: SO3(angle: yaw, axis: Vec3(0, 0, 1)) * p.pose.rotation,
                                                       translation: p.pose.translation))
        }
        let report = try Evaluator.evaluate(estimate: est, groundTruth: line,
                                            options: EvaluationOptions(alignment: .none, segments: .metres([20])))
        let segment = try #require(report.rpe.first)
        #expect(segment.rotationErrors_deg.allSatisfy { abs($0 - 2) < 1e-9 })
    }

    @Test func relativeErrorIgnoresRigidFrameChange() throws {
        let gt = Synthetic.trajectory(rate_hz: 20, duration: 30)
        let est = Synthetic.transformed(gt, by: SimilarityTransform(rotation: SO3.exp(Vec3(1, 2, 3)), translation: Vec3(5, 5, 5)))
        let report = try Evaluator.evaluate(estimate: est, groundTruth: gt, options: EvaluationOptions(alignment: .none))
        #expect(report.ate.position.rmse > 1)  // unaligned: far off
        for segment in report.rpe {
            #expect(segment.translation.count > 0)
            #expect(segment.translation.max < 1e-9)
            #expect(segment.rotation.max < 1e-6)
        }
    }

    @Test func defaultSegmentsArePercentagesOfThePath() throws {
        let report = try Evaluator.evaluate(estimate: line, groundTruth: line, options: EvaluationOptions(alignment: .none))
        #expect(abs(report.pathLength_m - 100) < 1e-9)
        #expect(report.rpe.map(\.length_m).enumerated().allSatisfy { abs($1 - 10 * Double($0 + 1)) < 1e-9 })
    }

    @Test func parsesSegmentSpecifications() {
        #expect(SegmentLengths(parsing: "10%,20%,30%") == .fractionsOfPath([0.1, 0.2, 0.3]))
        #expect(SegmentLengths(parsing: "8,16,24m") == .metres([8, 16, 24]))
        #expect(SegmentLengths(parsing: "8m, 16m") == .metres([8, 16]))
        #expect(SegmentLengths(parsing: "8,16") == nil)        // unit missing
        #expect(SegmentLengths(parsing: "10%,20m") == nil)     // mixed
        #expect(SegmentLengths(parsing: "0%,20%") == nil)      // zero length
        #expect(SegmentLengths(parsing: "") == nil)
    }
}

@Suite struct CompletenessTests {
    @Test func gapReducesCompleteness() throws {
        // Estimates at 20 Hz over 0–10 s except a gap 4–6 s: 8 s of 10 s are tracked.
        let gt = Synthetic.trajectory(rate_hz: 200, duration: 10)
        let est = Synthetic.trajectory(rate_hz: 20, duration: 10).filter { $0.t_ns <= 4_000_000_000 || $0.t_ns >= 6_000_000_000 }
        let report = try Evaluator.evaluate(estimate: est, groundTruth: gt)
        #expect(abs(report.completeness - 0.8) < 1e-9)
        let full = try Evaluator.evaluate(estimate: Synthetic.trajectory(rate_hz: 20, duration: 10), groundTruth: gt)
        #expect(abs(full.completeness - 1) < 1e-12)
    }

    @Test func lateStartLosesTheUncoveredPart() {
        let times = (20...100).map { Int64($0) * 100_000_000 }  // 2 s … 10 s every 100 ms
        let c = Completeness.compute(estimateTimes: times, groundTruthStart: 0, groundTruthEnd: 10_000_000_000,
                                     gapTolerance_ns: 300_000_000)
        #expect(abs(c - 0.8) < 1e-12)
        #expect(Completeness.defaultGapTolerance(estimateTimes: times, maxDt_ns: 10_000_000) == 300_000_000)
    }
}
