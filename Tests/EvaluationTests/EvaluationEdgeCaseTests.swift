import Foundation
import Geometry
import Sensors
import Testing
@testable import Evaluation

/// What the evaluator refuses (too few pairs, non-finite figures) and flags (short or collinear paths).
@Suite struct EvaluationEdgeCaseTests {
    static func poses(_ n: Int, _ position: (Int) -> Vec3) -> [StampedPose] {
        (0..<n).map { StampedPose(t_ns: Int64($0) * 50_000_000, pose: SE3(rotation: .identity, translation: position($0))) }
    }

    @Test func fewerThanThreePairsThrow() throws {
        let gt = Self.poses(50) { Vec3(0.1 * Double($0), 0, 0) }
        for n in [1, 2] {
            #expect(throws: EvaluationError.tooFewPairs(got: n, needed: 3)) {
                try Evaluator.evaluate(estimate: Array(gt.prefix(n)), groundTruth: gt)
            }
        }
        #expect(try Evaluator.evaluate(estimate: Array(gt.prefix(3)), groundTruth: gt).pairs.count == 3)
    }

    @Test func overflowingPositionsAreNonFiniteErrors() {
        let gt = Self.poses(20) { Vec3(0.1 * Double($0), 1, 0) }
        let est = Self.poses(20) { Vec3(1e200 * Double($0), 1e200, 0) }
        #expect(throws: EvaluationError.self) { try Evaluator.evaluate(estimate: est, groundTruth: gt, options: EvaluationOptions(alignment: .none)) }
        do { _ = try Evaluator.evaluate(estimate: est, groundTruth: gt, options: EvaluationOptions(alignment: .none)) } catch {
            guard case EvaluationError.nonFinite = error else { Issue.record("\(error)"); return }
        }
    }

    @Test func shortPathWarnsForEveryAlignment() throws {
        let gt = Self.poses(100) { k in Vec3(0.007 * sin(Double(k) * 0.06), 0.004 * cos(Double(k) * 0.05), 0) }
        for method in AlignmentMethod.allCases {
            let report = try Evaluator.evaluate(estimate: gt, groundTruth: gt, options: EvaluationOptions(alignment: method))
            #expect(report.pathLength_m < 0.1)
            #expect(report.warnings.contains { $0.contains("cm long") }, "\(method)")
        }
    }

    @Test func collinearPositionsWarnForSE3AndSim3Only() throws {
        let gt = Self.poses(100) { k in Vec3(0.05 * Double(k), 0.0005 * sin(Double(k)), 0) }
        for method in AlignmentMethod.allCases {
            let report = try Evaluator.evaluate(estimate: gt, groundTruth: gt, options: EvaluationOptions(alignment: method))
            let warned = report.warnings.contains { $0.contains("collinear") }
            #expect(warned == (method == .se3 || method == .sim3), "\(method): \(report.warnings)")
        }
        // A walk around a room (2-D spread) does not warn.
        let loop = Self.poses(200) { k in Vec3(2 * cos(Double(k) * 0.03), 1.5 * sin(Double(k) * 0.03), 0.1 * sin(Double(k) * 0.1)) }
        #expect(try Evaluator.evaluate(estimate: loop, groundTruth: loop, options: EvaluationOptions(alignment: .se3)).warnings.isEmpty)
        let spreads = AlignmentConditioning.principalSpreads(loop.map(\.pose.translation))
        #expect(spreads[0] >= spreads[1] && spreads[1] >= spreads[2] && spreads[1] > 0.5)
    }

    @Test func rpeSegmentsWithoutPairsCarryNoFigures() throws {
        let gt = Self.poses(100) { Vec3(0.05 * Double($0), 0, 0) }
        let report = try Evaluator.evaluate(estimate: gt, groundTruth: gt, options: EvaluationOptions(segments: .metres([1, 100])))
        let summary = EvaluationSummary(report)
        #expect(summary.rpe[0].pairs > 0 && summary.rpe[0].trans_mean_m != nil && summary.rpe[0].note == nil)
        #expect(summary.rpe[1].pairs == 0 && summary.rpe[1].trans_mean_m == nil && summary.rpe[1].rot_rmse_deg == nil)
        let json = try summary.jsonString()
        #expect(json.contains("\"note\":\"no pose pair this far apart\""))
        #expect(!json.contains("\"pairs\":0,\"rot"))
    }
}
