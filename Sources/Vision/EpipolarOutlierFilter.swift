import Foundation
import Geometry
import Imaging

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

