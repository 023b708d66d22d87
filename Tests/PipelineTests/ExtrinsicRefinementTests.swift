import Estimation
import Evaluation
import Foundation
import Geometry
import Pipeline
import Sensors
import Testing
import TestSupport

/// Issue 15 (item 4): online refinement of the camera–IMU mounting (`state.extrinsics`), on the simulated room
/// (60 s, seed 12, starting in motion: the sequence the accuracy tests render) tracked with a calibration whose mounting is 1° and 1 cm off the truth.
@Suite("Camera–IMU mounting refinement (simulated room, whole pipeline)")
struct ExtrinsicRefinementTests {
    /// The error put into the calibration: 1° about a skew axis and 1 cm, applied to the whole rig on the left
    /// (`T_B_C' = ΔT · T_B_C`).
    static let perturbation = SE3(rotation: SO3(angle: .pi / 180, axis: Vec3(1, 2, -1).normalized),
                                  translation: Vec3(1, -1, 1).normalized * 0.01)

    /// Tracks the room with the true or the perturbed calibration, refining the mounting or not; returns the posyaw
    /// ATE and the mounting the run ended with (and the true one).
    static func track(perturbed: Bool, refine: Bool) throws -> (ate: Double, final: SE3, truth: SE3) {
        let path = try SimSequenceCache.roomHandheld(seconds: 60, seed: 12, startMoving: true)
        var dataset = try ASLDataset(path: path)
        let truth = dataset.cameras[0].calibration.T_B_C
        if perturbed {
            for i in dataset.cameras.indices { dataset.cameras[i].calibration.T_B_C = perturbation * dataset.cameras[i].calibration.T_B_C }
        }
        var options = PipelineOptions()
        options.estimator.state.extrinsics.estimate = refine
        let summary = try TrackingPipeline(dataset: dataset, options: options).run()
        let groundTruth = try TrajectoryLoader.load(path: path).poses
        let report = try Evaluator.evaluate(estimate: summary.bodyTrajectory, groundTruth: groundTruth,
                                            options: EvaluationOptions(alignment: .posyaw))
        let final = try #require(summary.lastEstimate?.T_B_C0)
        return (report.ate.position.rmse, final, truth)
    }

    /// With the 1°/1 cm error refined online the mounting ends within 0.25° and 3 mm of the truth (measured 0.02°,
    /// 1.9 mm) and the ATE within 2× of the run with the true calibration (3.9 → 6.6 mm: the poses before the
    /// lever arm converges carry its error); control: the same error left in place costs 6.8× (26.5 mm), so the
    /// refined run must recover most of it (≤ 0.35× the control's ATE).
    @Test("a 1° / 1 cm mounting error: refined to within 0.25° and 3 mm, ATE within 2× of the true calibration; control without refinement")
    func refinesAPerturbedMounting() throws {
        let reference = try Self.track(perturbed: false, refine: false)
        let refined = try Self.track(perturbed: true, refine: true)
        let control = try Self.track(perturbed: true, refine: false)
        let angleDeg = refined.final.rotation.angle(to: refined.truth.rotation) * 180 / .pi
        let offset = (refined.final.translation - refined.truth.translation).norm
        let startAngleDeg = control.final.rotation.angle(to: control.truth.rotation) * 180 / .pi
        print("mounting refinement: ATE \(reference.ate) m with the true calibration, \(refined.ate) m refined from 1°/1 cm off "
              + "(ends \(angleDeg)° and \(offset * 1000) mm from the truth), \(control.ate) m with the error left in (\(startAngleDeg)°)")
        #expect(refined.ate <= 2 * reference.ate)
        #expect(refined.ate <= 0.35 * control.ate)
        #expect(angleDeg < 0.25)
        #expect(offset < 0.003)
        #expect(control.ate > 4 * reference.ate)
        #expect(abs(startAngleDeg - 1) < 1e-6) // the control ran with the perturbed mounting, unrefined
        #expect(reference.final == reference.truth)
    }
}
