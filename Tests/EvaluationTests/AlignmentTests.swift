import Foundation
import Geometry
import Sensors
import Testing
@testable import Evaluation

/// 1e-9: exact closed-form alignments on noise-free data lose only rounding (~1e-13 relative on metre scales).
private let exact = 1e-9

private func positions(_ poses: [StampedPose]) -> [Vec3] { poses.map(\.pose.translation) }

private func rotationDistance(_ a: SO3, _ b: SO3) -> Double { (a.inverse * b).angle }

@Suite struct AlignmentTests {
    let gt = Synthetic.trajectory(rate_hz: 20, duration: 30)
    /// The transform G ← E is the inverse of the one that made the estimate, so the estimate is made
    /// with the inverse of `known` and the alignment must return `known`.
    func estimate(inverseOf known: SimilarityTransform) -> [StampedPose] {
        let rInv = known.rotation.inverse
        let inverse = SimilarityTransform(rotation: rInv, translation: -(1 / known.scale) * rInv.act(known.translation),
                                          scale: 1 / known.scale)
        return Synthetic.transformed(gt, by: inverse)
    }

    @Test func se3RecoversRigidTransform() throws {
        let known = SimilarityTransform(rotation: SO3.exp(Vec3(0.3, -0.5, 1.2)), translation: Vec3(4, -2, 0.7))
        let est = estimate(inverseOf: known)
        let found = try Alignment.align(estimate: positions(est), groundTruth: positions(gt), method: .se3)
        #expect(rotationDistance(found.rotation, known.rotation) < exact)
        #expect((found.translation - known.translation).norm < exact)
        #expect(found.scale == 1)
        let report = try Evaluator.evaluate(estimate: est, groundTruth: gt, options: EvaluationOptions(alignment: .se3))
        #expect(report.ate.position.rmse < exact)
        #expect(report.ate.rotation.max < 1e-6)  // degrees; same rounding, ×57
    }

    @Test func sim3RecoversScale() throws {
        let known = SimilarityTransform(rotation: SO3.exp(Vec3(-0.8, 0.2, 2.5)), translation: Vec3(-1, 3, 2), scale: 0.8)
        let est = estimate(inverseOf: known)
        let found = try Alignment.align(estimate: positions(est), groundTruth: positions(gt), method: .sim3)
        #expect(rotationDistance(found.rotation, known.rotation) < exact)
        #expect((found.translation - known.translation).norm < exact)
        #expect(abs(found.scale - 0.8) < exact)
        let report = try Evaluator.evaluate(estimate: est, groundTruth: gt, options: EvaluationOptions(alignment: .sim3))
        #expect(report.ate.position.rmse < exact)
        // Scale error |1 − 0.8|·100 = 20 %, reported whatever the chosen method.
        #expect(abs((report.scaleErrorPercent ?? 0) - 20) < 1e-7)
        let se3Report = try Evaluator.evaluate(estimate: est, groundTruth: gt, options: EvaluationOptions(alignment: .se3))
        #expect(abs((se3Report.scaleErrorPercent ?? 0) - 20) < 1e-7)
        #expect(se3Report.ate.position.rmse > 0.1)  // SE(3) cannot absorb a 25 % scale error on a metres-wide path
    }

    @Test func posYawRecoversYawAndTranslation() throws {
        let known = SimilarityTransform(rotation: SO3(angle: 2.4, axis: Vec3(0, 0, 1)), translation: Vec3(1.5, -0.3, 0.2))
        let est = estimate(inverseOf: known)
        let found = try Alignment.align(estimate: positions(est), groundTruth: positions(gt), method: .posyaw)
        #expect(rotationDistance(found.rotation, known.rotation) < exact)
        #expect((found.translation - known.translation).norm < exact)
        let report = try Evaluator.evaluate(estimate: est, groundTruth: gt, options: EvaluationOptions(alignment: .posyaw))
        #expect(report.ate.position.rmse < exact)
    }

    @Test func posYawKeepsRollPitchErrorWhileSE3RemovesIt() throws {
        // A 5° tilt about x (plus yaw and shift): the estimate's gravity is wrong, which posyaw must not hide.
        let tilt = SO3(angle: 5 * .pi / 180, axis: Vec3(1, 0, 0)) * SO3(angle: 0.5, axis: Vec3(0, 0, 1))
        let est = estimate(inverseOf: SimilarityTransform(rotation: tilt, translation: Vec3(0.3, 0.1, -0.2)))
        let posyaw = try Evaluator.evaluate(estimate: est, groundTruth: gt, options: EvaluationOptions(alignment: .posyaw))
        let se3 = try Evaluator.evaluate(estimate: est, groundTruth: gt, options: EvaluationOptions(alignment: .se3))
        // 5° over a path ~±2 m in y and z moves points by ~0.1 m; posyaw must leave centimetres, not 1e-9.
        #expect(posyaw.ate.position.rmse > 0.05)
        #expect(posyaw.ate.rotation.rmse > 4.9)  // degrees: the tilt remains in every orientation
        #expect(se3.ate.position.rmse < exact)
        #expect(se3.ate.rotation.rmse < 1e-6)
    }

    @Test func umeyamaHandlesTheReflectionCase() throws {
        // A mirrored estimate (y → −y): the best orthogonal map is a reflection, which Umeyama must
        // exclude by flipping the smallest singular direction. The rotation returned must then be the best
        // proper rotation: no small rotation about any axis may lower the cost.
        let est = positions(gt).map { $0 * Vec3(1, -1, 1) }
        let g = positions(gt)
        func cost(_ r: SO3, scale: Double) -> Double {
            let t = Alignment.mean(g) - scale * r.act(Alignment.mean(est))
            return zip(est, g).reduce(0) { $0 + ($1.1 - (scale * r.act($1.0) + t)).squaredNorm }
        }
        for method in [AlignmentMethod.se3, .sim3] {
            let found = try Alignment.align(estimate: est, groundTruth: g, method: method)
            let best = cost(found.rotation, scale: found.scale)
            for axis in [Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)] {
                for sign in [-1.0, 1.0] {
                    // 1e-3 rad perturbations: the cost rises by ~1e-6 · Σ|e|² ≫ rounding if at the optimum.
                    #expect(cost(found.rotation * SO3.exp(sign * 1e-3 * axis), scale: found.scale) > best)
                }
            }
        }
    }

    @Test func noiseOfKnownRMSEIsMeasured() throws {
        // Isotropic Gaussian noise σ per axis: the position error RMSE is σ√3 in expectation.
        let sigma = 0.05
        let truth = Synthetic.trajectory(rate_hz: 50, duration: 60)  // 3001 poses
        var random = SeededRandom(seed: 42)
        let known = SimilarityTransform(rotation: SO3.exp(Vec3(0.1, 0.2, -1.0)), translation: Vec3(2, 2, 2))
        var noise: [Vec3] = []
        let est = Synthetic.transformed(truth, by: known).map { p -> StampedPose in
            let n = random.gaussian3(sigma)
            noise.append(n)
            return StampedPose(t_ns: p.t_ns, pose: SE3(rotation: p.pose.rotation, translation: p.pose.translation + n))
        }
        let report = try Evaluator.evaluate(estimate: est, groundTruth: truth, options: EvaluationOptions(alignment: .se3))
        let sampleRMSE = (noise.reduce(0) { $0 + $1.squaredNorm } / Double(noise.count)).squareRoot()
        // n = 3001 squared norms (3 dof each): the relative std of the RMSE is ≈ 1/√(6n) ≈ 0.75 %;
        // 4 % is > 5 σ, and a wrong alignment (or no alignment) gives metres.
        #expect(abs(report.ate.position.rmse - sigma * 3.0.squareRoot()) < 0.04 * sigma * 3.0.squareRoot())
        // The alignment fits 6 parameters to 9003 residuals: it may only shrink the sample's own RMSE
        // by ~6/9003 relative (0.07 %); 0.5 % allows for that and for the pose-dependent lever arms.
        #expect(report.ate.position.rmse <= sampleRMSE * (1 + 1e-9))
        #expect(report.ate.position.rmse > sampleRMSE * 0.995)
    }

    @Test func alignFirstUsesOnlyThoseFirstPoses() throws {
        // The first 100 poses are an exact rigid copy; later poses drift upwards by 1 cm per pose.
        let known = SimilarityTransform(rotation: SO3.exp(Vec3(0, 0, 0.9)), translation: Vec3(1, 2, 3))
        var est = estimate(inverseOf: known)
        for k in est.indices where k >= 100 { est[k].pose.translation.z += 0.01 * Double(k - 99) }
        let first = try Evaluator.evaluate(estimate: est, groundTruth: gt,
                                           options: EvaluationOptions(alignment: .se3, alignFirst: 100))
        #expect(first.alignedOn == 100)
        #expect(first.ate.positionErrors_m.prefix(100).allSatisfy { $0 < exact })
        // The drift is untouched: the last pose (k = 600) is 5.01 m off.
        let lastError = try #require(first.ate.positionErrors_m.last)
        #expect(abs(lastError - 0.01 * Double(est.count - 100)) < 1e-6)
        let all = try Evaluator.evaluate(estimate: est, groundTruth: gt, options: EvaluationOptions(alignment: .se3))
        #expect(all.ate.positionErrors_m.prefix(100).allSatisfy { $0 > 1e-3 })  // spreading the drift moves the start
    }

    @Test func noneLeavesTheEstimateAlone() throws {
        let est = Synthetic.transformed(gt, by: SimilarityTransform(translation: Vec3(0, 0, 0.25)))
        let report = try Evaluator.evaluate(estimate: est, groundTruth: gt, options: EvaluationOptions(alignment: .none))
        #expect(abs(report.ate.position.rmse - 0.25) < exact)
        #expect(abs(report.ate.position.max - 0.25) < exact)
    }

    @Test func sim3WithoutSpreadIsAnError() throws {
        let p = [Vec3(1, 1, 1), Vec3(1, 1, 1)]
        #expect(throws: AlignmentError.self) { try Alignment.align(estimate: p, groundTruth: p, method: .sim3) }
    }
}
