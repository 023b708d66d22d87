import Foundation
import Geometry
import LinearAlgebra

extension DynamicInitializer {
    /// The refusal of a window whose tracks do not determine the speed, or nil.
    ///
    /// The alignment's squared residual is quadratic in `x = (v0, g)` once the points are eliminated:
    /// `C(x) = C_min + (x − x̂)ᵀ S (x − x̂)` with `S` the Schur-reduced normal matrix (`normalEquations`, the rows
    /// weighted as they were solved). Forcing the speed along `v̂0` to change by `δ` and fitting everything else
    /// again raises it by `δ² / (v̂0ᵀ S⁻¹ v̂0)`. The tolerance is the `δ` that raises it by half of `C_min`: the misfit
    /// that is left at the optimum is mostly not the pixel noise the covariance assumes but what the model leaves
    /// out (tracking error, the accelerometer bias taken as zero, timing), so a speed the data prefer by less than
    /// that is not determined by them. A window is refused when its tolerance exceeds both
    /// `maxRelativeSpeedTolerance` × the speed and `speedToleranceAllowance`. `attempt` asks only where the motion
    /// leaves the scale little to rest on (`scaleExcitation`): on clean simulated data the residual is so small
    /// that half again of it is a strict bound, and well-excited windows failed it.
    ///
    /// Measured (docs/ACCURACY.md, "Circling at an even speed"): halving the speed raises the residual by 3–27 % on
    /// every window of a simulated circle flown at 0.65 m/s while facing its centre (where the mono alignment found
    /// 0.1–0.3 m/s, also with perfect sensors), and 20–70 times on the simulated walk; 1.6–15 times (median per
    /// start) on the real-IMU V1_01 flight; 13–120 times in stereo, whose baseline fixes the scale.
    func speedRefusal(tracks: Tracks, increments inc: Increments, weights: [Int: [Double]],
                      normalEquations: (S: [Double], rhs: [Double])) -> Refusal? {
        let options = configuration.initializer
        guard let x = solve6(normalEquations.S, normalEquations.rhs),
              let Sinv = try? Matrix(rows: 6, columns: 6, rowMajor: normalEquations.S).symmetrized().symmetricPositiveDefiniteInverse()
        else { return nil }
        let v0 = Vec3(x[0], x[1], x[2])
        let speed = v0.norm
        let direction = speed > 0 ? v0 / speed : Vec3(1, 0, 0)
        var q = 0.0
        for a in 0..<3 { for b in 0..<3 { q += direction[a] * Sinv[a, b] * direction[b] } }
        let r = residuals(tracks: tracks, rot: inc.rot, alpha: inc.alpha, dt: inc.dt, weights: weights, x: x)
        let minimum = r.reduce(0) { $0 + $1 * $1 }
        guard q > 0, minimum > 0 else { return nil }
        return Refusal(speed: speed, tolerance: (0.5 * minimum * q).squareRoot(), options: options)
    }

    /// The refusal of a window whose speed an accelerometer bias within its prior would move too far, or nil.
    /// `velocity_B0` is the velocity found at the window's end and `sensitivity_B0` its derivative by the
    /// accelerometer bias the alignment took as zero (B0 axes, per m/s² of body-frame bias: `accelBiasSensitivity`).
    /// The speed's tolerance is its 1-σ from the bias prior, `σ_ba ‖Kᵀ v̂‖`, refused as in `speedRefusal`. This is
    /// the physical side of the same degeneracy: a constant body-frame acceleration (the centripetal one of an even
    /// circle) reads like a bias, so the bias prior is then all that holds the scale.
    static func biasRefusal(velocity_B0 v: Vec3, sensitivity_B0 K: Mat3, options: InertialInitializerOptions) -> Refusal? {
        let speed = v.norm
        let direction = speed > 0 ? v / speed : Vec3(1, 0, 0)
        return Refusal(speed: speed, tolerance: options.initialAccelBiasStd * (K.transposed * direction).norm, options: options)
    }
}

extension DynamicInitializer.Refusal {
    /// The refusal of a speed (m/s) that could be off by `tolerance` (m/s), or nil when the tolerance is within
    /// `maxRelativeSpeedTolerance` of the speed or within `speedToleranceAllowance`: the one rule both tests apply.
    init?(speed: Double, tolerance: Double, options: InertialInitializerOptions) {
        guard tolerance > options.speedToleranceAllowance, tolerance > options.maxRelativeSpeedTolerance * speed else { return nil }
        self = .speedNotDetermined(speed: speed, tolerance: tolerance)
    }
}
