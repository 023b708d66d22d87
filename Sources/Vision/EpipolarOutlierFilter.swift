import Foundation
import Geometry
import Imaging
import LinearAlgebra

/// Rejects correspondences that break the epipolar constraint of a rigid scene between two views.
///
/// Points are undistorted normalised coordinates (x/z, y/z). Without a known rotation the model is
/// the essential matrix by RANSAC over the five-point solver (OpenCV); with the rotation
/// `R_C2_C1` known (from the gyro) only the translation direction is unknown and two points fix
/// it, so RANSAC needs a handful of iterations.
public enum EpipolarOutlierFilter {
    /// Fewest correspondences RANSAC is run on; with fewer every correspondence is kept.
    public static let minimumCorrespondences = 8

    /// Inlier flags for the correspondences `x1[i]` (view 1) ↔ `x2[i]` (view 2).
    /// - Parameters:
    ///   - threshold: bound on the distance to the epipolar line, normalised units (pixels / focal length).
    ///   - R_C2_C1: the rotation from view 1 to view 2 when known (two-point RANSAC), else `nil`.
    ///   - estimator: the five-point RANSAC variant (when `R_C2_C1` is nil).
    public static func inliers(_ x1: [Vec2], _ x2: [Vec2], threshold: Double, R_C2_C1: SO3? = nil,
                               estimator: EpipolarRANSAC.EssentialEstimator = .ransac) -> [Bool] {
        precondition(x1.count == x2.count, "EpipolarOutlierFilter: unequal point counts")
        guard x1.count >= minimumCorrespondences else { return [Bool](repeating: true, count: x1.count) }
        if let R = R_C2_C1 { return twoPoint(x1, x2, threshold: threshold, R_C2_C1: R) }
        do {
            return try EpipolarRANSAC.essential(x1, x2, threshold: threshold, confidence: 0.999, maxIterations: 500,
                                                estimator: estimator).inliers
        } catch {
            // No model (degenerate motion or geometry): keep everything rather than lose the tracks.
            return [Bool](repeating: true, count: x1.count)
        }
    }

    /// As `inliers` without a known rotation (the five-point RANSAC), also returning the rotation from view 1 to
    /// view 2 of the essential matrix: of the two it admits, the smaller turn (the other is the first turned half a
    /// revolution about the baseline; between video frames the smaller one is the camera's). Not by cheirality: at
    /// walking or flying speed the baseline between two frames is a hundredth of the depths and cv::recoverPose finds
    /// too few points in front to decide. The rotation is nil when no model was found, when the smaller turn is
    /// `maxRotation_rad` or more, or with fewer than `minimumCorrespondences` correspondences.
    public static func inliersAndRotation(_ x1: [Vec2], _ x2: [Vec2], threshold: Double,
                                          estimator: EpipolarRANSAC.EssentialEstimator = .ransac,
                                          maxRotation_rad: Double = 0.5) -> (inliers: [Bool], R_C2_C1: SO3?) {
        precondition(x1.count == x2.count, "EpipolarOutlierFilter: unequal point counts")
        let all = [Bool](repeating: true, count: x1.count)
        guard x1.count >= minimumCorrespondences else { return (all, nil) }
        guard let model = try? EpipolarRANSAC.essential(x1, x2, threshold: threshold, confidence: 0.999, maxIterations: 500,
                                                        estimator: estimator) else { return (all, nil) }
        guard let (m1, m2, t0) = try? EpipolarRANSAC.rotations(ofEssential: model.matrix) else { return (model.inliers, nil) }
        let a = SO3(matrix: Mat3(rowMajor: m1)), b = SO3(matrix: Mat3(rowMajor: m2))
        let smaller = a.log.norm <= b.log.norm ? a : b
        guard smaller.log.norm < maxRotation_rad else { return (model.inliers, nil) }
        // The minimal sample's model holds the rotation only to about the inlier threshold when the baseline is small
        // (the epipolar lines then barely constrain it): refit on every inlier.
        let t = Vec3(t0.x, t0.y, t0.z)
        return (model.inliers, refineRotation(smaller, translation: t, x1, x2, inliers: model.inliers))
    }

    /// The rotation of `R_C2_C1` (with a unit translation `t`, up to sign) refined by Gauss–Newton on the Sampson
    /// errors of the inlier correspondences (five parameters: a rotation increment and two tangent steps of the
    /// translation's direction; forward-difference Jacobians). Returns `R` unchanged when a step fails.
    static func refineRotation(_ R: SO3, translation t: Vec3, _ x1: [Vec2], _ x2: [Vec2], inliers: [Bool],
                               iterations: Int = 6) -> SO3 {
        let pairs = x1.indices.filter { inliers[$0] }.map { (Vec3(x1[$0].x, x1[$0].y, 1), Vec3(x2[$0].x, x2[$0].y, 1)) }
        guard pairs.count >= minimumCorrespondences, t.norm > 0 else { return R }
        func residuals(_ R: SO3, _ t: Vec3) -> [Double] {
            let E = t.skew * R.matrix, Et = E.transposed
            return pairs.map { p1, p2 in
                let l2 = E * p1, l1 = Et * p2
                let d = l2.x * l2.x + l2.y * l2.y + l1.x * l1.x + l1.y * l1.y
                return d > 0 ? p2.dot(l2) / d.squareRoot() : 0
            }
        }
        func apply(_ R: SO3, _ t: Vec3, _ step: [Double]) -> (SO3, Vec3) {
            // Tangent basis of the translation's direction.
            let helper = abs(t.x) < 0.9 ? Vec3(1, 0, 0) : Vec3(0, 1, 0)
            let b1 = t.cross(helper) / t.cross(helper).norm, b2 = t.cross(b1)
            let moved = t + step[3] * b1 + step[4] * b2
            return (SO3.exp(Vec3(step[0], step[1], step[2])) * R, moved / moved.norm)
        }
        var R = R, t = t / t.norm
        var r = residuals(R, t)
        for _ in 0..<iterations {
            // Jacobian of the residuals in the five step parameters (forward differences), row-major n × 5.
            let h = 1e-7
            var J = [Double](repeating: 0, count: r.count * 5)
            for k in 0..<5 {
                var step = [Double](repeating: 0, count: 5)
                step[k] = h
                let (Rk, tk) = apply(R, t, step)
                for (i, rk) in residuals(Rk, tk).enumerated() { J[i * 5 + k] = (rk - r[i]) / h }
            }
            // The Gauss–Newton step: the least-squares solution of J δ = −r (QR, LinearAlgebra).
            guard let delta = try? Matrix(rows: r.count, columns: 5, rowMajor: J).leastSquares(Matrix(columnVector: r.map { -$0 })).elements,
                  delta.count == 5, delta.allSatisfy(\.isFinite) else { return R }
            let (Rn, tn) = apply(R, t, delta)
            let rn = residuals(Rn, tn)
            // Keep a step only when it lowers the squared error.
            guard rn.reduce(0, { $0 + $1 * $1 }) < r.reduce(0, { $0 + $1 * $1 }) else { break }
            (R, t, r) = (Rn, tn, rn)
        }
        return R
    }

    /// Distance of `x2` to the epipolar line `E x1` with `E = [t]× R`, normalised units.
    @inline(__always)
    static func lineDistance(t: Vec3, Rx1: Vec3, x2: Vec3) -> Double {
        let l = t.cross(Rx1)
        let n = (l.x * l.x + l.y * l.y).squareRoot()
        return n > 1e-15 ? abs(l.dot(x2)) / n : (Rx1 / Rx1.z - x2).norm
    }

    /// Two-point RANSAC on the translation direction with the rotation known.
    static func twoPoint(_ x1: [Vec2], _ x2: [Vec2], threshold: Double, R_C2_C1 R: SO3) -> [Bool] {
        let n = x1.count
        let Rm = R.matrix
        let rx1 = x1.map { Rm * Vec3($0.x, $0.y, 1) }
        let h2 = x2.map { Vec3($0.x, $0.y, 1) }
        // Each pair (i, j) gives t ∝ a_i × a_j with a = (R x1) × x2 (t · a = 0 for an inlier).
        let a = (0..<n).map { rx1[$0].cross(h2[$0]) }
        var rng = SeededRandom(seed: 0x5EED_F00D)
        var bestCount = -1
        var best = [Bool](repeating: true, count: n)
        var iterations = 0, needed = 200
        var flags = [Bool](repeating: false, count: n)
        while iterations < needed {
            iterations += 1
            let i = Int(rng.next() % UInt64(n))
            var j = Int(rng.next() % UInt64(n - 1)); if j >= i { j += 1 }
            var t = a[i].cross(a[j])
            let tn = t.norm
            // Parallel constraints (tiny translation or equal points): no direction; any t is as good,
            // so score the pure-rotation model (distance to the rotated point).
            t = tn > 1e-12 ? t / tn : .zero
            var count = 0
            for k in 0..<n {
                let d = lineDistance(t: t, Rx1: rx1[k], x2: h2[k])
                flags[k] = d <= threshold
                if flags[k] { count += 1 }
            }
            if count > bestCount {
                bestCount = count; best = flags
                let w = Double(count) / Double(n)
                let pGood = max(1e-9, w * w)
                if pGood >= 1 { needed = iterations } else {
                    needed = min(200, Int((log(1 - 0.999) / log(1 - pGood)).rounded(.up)))
                }
            }
        }
        return best
    }
}

