import Evaluation
import Geometry
import Sensors
import Testing

/// `EvaluationOptions.fixedAlignment` (`eval --alignment-of`): the estimate is compared through a given transform, not
/// aligned itself.
@Suite("Evaluation with a fixed alignment")
struct FixedAlignmentTests {
    @Test("run 2 in run 1's frame: zero error through run 1's alignment, the offset between the frames without it")
    func fixedAlignment() throws {
        let truth = Synthetic.trajectory(rate_hz: 20, duration: 10)
        // Run 1 reports in a frame that is the truth's moved by S (yaw 40°, 2 m); run 2 reports in run 1's frame too,
        // on another stretch of time; a run 2 in a frame of its own is off by 0.1 rad and 30 cm more.
        let S = SimilarityTransform(rotation: SO3(yaw: 0.7), translation: Vec3(2, -1, 0.3))
        let inverse = SimilarityTransform(rotation: S.rotation.inverse, translation: -(S.rotation.inverse.act(S.translation)))
        let run1 = Synthetic.transformed(Array(truth.prefix(100)), by: inverse)
        let run2 = Synthetic.transformed(Array(truth.suffix(80)), by: inverse)
        let run2Elsewhere = Synthetic.transformed(run2, by: SimilarityTransform(rotation: SO3(yaw: 0.1), translation: Vec3(0.3, 0, 0)))

        let alignment1 = try Evaluator.evaluate(estimate: run1, groundTruth: truth).transform
        #expect((alignment1.translation - S.translation).norm < 1e-6 && alignment1.rotation.angle(to: S.rotation) < 1e-6)
        var fixed = EvaluationOptions()
        fixed.fixedAlignment = alignment1
        let same = try Evaluator.evaluate(estimate: run2, groundTruth: truth, options: fixed)
        let other = try Evaluator.evaluate(estimate: run2Elsewhere, groundTruth: truth, options: fixed)
        #expect(same.ate.position.rmse < 1e-6)
        #expect(other.ate.position.rmse > 0.3)
        // The estimate's own posyaw alignment would hide the offset: the fixed one is really what was applied.
        #expect(try Evaluator.evaluate(estimate: run2Elsewhere, groundTruth: truth).ate.position.rmse < 1e-6)
        #expect(other.transform == alignment1)
        // `eval --json` says the transform was given, not fitted to this estimate.
        #expect(other.alignedOn == 0)
        let summary = EvaluationSummary(other)
        #expect(summary.alignment_fixed && summary.aligned_pairs == 0)
        #expect(!EvaluationSummary(try Evaluator.evaluate(estimate: run2Elsewhere, groundTruth: truth)).alignment_fixed)
    }
}
