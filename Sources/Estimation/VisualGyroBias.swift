import Foundation
import Geometry
import Sensors

/// The gyro bias from the image rotations alone (used by `DynamicInitializer` to check its own estimate): for frame pairs (i, k) of
/// the window, the gyro's rotation `R_Ci_Ck(b)` must make every track's bearings coplanar with one translation:
/// `t · ((R_Ck_Ci x_i) × x_k) = 0`. For a fixed rotation the best translation is the eigenvector of the smallest
/// eigenvalue of `M = Σ u uᵀ`, `u = (R_Ck_Ci x_i) × x_k` (bearings as unit vectors), so that eigenvalue is a cost of the
/// rotation alone — depth, translation, velocity and gravity do not enter, so unlike the alignment's own cost it has
/// no valley along which a gravity tilt mimics a rotation-rate error. The bias minimises the sum over the pairs.
struct VisualGyroBias {
    /// Camera 0's mounting on the body.
    var T_B_C: SE3

    /// The pairs used: (first, k) for k at a quarter, half, three quarters and the end of the window, and the second
    /// half on its own.
    static func pairs(frameCount n: Int) -> [(Int, Int)] {
        guard n >= 5 else { return [] }
        var out = [(0, n / 4), (0, n / 2), (0, 3 * n / 4), (0, n - 1), (n / 2, n - 1)]
        out.removeAll { $0.0 == $0.1 }
        return out
    }

    /// Camera-0 bearings (unit vectors) of the tracks seen in both frames of each pair, in track-id order.
    typealias PairBearings = [(i: Int, k: Int, bearings: [(Vec3, Vec3)])]

    /// The bearings of each pair, gathered once for all the cost evaluations.
    static func bearings(tracks: DynamicInitializer.Tracks, pairs: [(Int, Int)]) -> PairBearings {
        let ids = tracks.keys.sorted()   // a fixed order: the sums are then the same on every run
        return pairs.map { (i, k) in
            var out: [(Vec3, Vec3)] = []
            for id in ids {
                guard let obs = tracks[id], let a = obs.first(where: { $0.0 == i && $0.1 == 0 })?.2,
                      let b = obs.first(where: { $0.0 == k && $0.1 == 0 })?.2 else { continue }
                out.append((Vec3(a.x, a.y, 1).normalized, Vec3(b.x, b.y, 1).normalized))
            }
            return (i, k, out)
        }
    }

    /// The cost of gyro rotations `rot` (`R_B0_Bk` per frame): the mean smallest eigenvalue per pair.
    func cost(_ pairs: PairBearings, rot: [SO3]) -> Double {
        let R_B_C = T_B_C.rotation
        var total = 0.0
        for pair in pairs where pair.bearings.count >= 8 {
            let R_Ck_Ci = (R_B_C.inverse * rot[pair.k].inverse * rot[pair.i] * R_B_C).matrix
            var M = Mat3.zero
            for (xi, xk) in pair.bearings {
                let u = (R_Ck_Ci * xi).cross(xk)
                M = M + Mat3.outer(u, u)
            }
            total += Self.smallestEigenvalue(M) / Double(pair.bearings.count)
        }
        return total
    }

    /// The smallest eigenvalue of a symmetric 3×3 matrix (closed form: the trigonometric solution of the
    /// characteristic cubic).
    static func smallestEigenvalue(_ m: Mat3) -> Double {
        let p1 = m[0, 1] * m[0, 1] + m[0, 2] * m[0, 2] + m[1, 2] * m[1, 2]
        let q = (m[0, 0] + m[1, 1] + m[2, 2]) / 3
        if p1 == 0 { return min(m[0, 0], m[1, 1], m[2, 2]) }
        let p2 = (m[0, 0] - q) * (m[0, 0] - q) + (m[1, 1] - q) * (m[1, 1] - q) + (m[2, 2] - q) * (m[2, 2] - q) + 2 * p1
        let p = (p2 / 6).squareRoot()
        guard p > 0 else { return q }
        let B = (1 / p) * (m - q * Mat3.identity)
        let r = max(-1, min(1, B.determinant / 2))
        let phi = acos(r) / 3
        // Eigenvalues q + 2p·cos(φ + 2πj/3); the smallest is j = 1.
        return q + 2 * p * cos(phi + 2 * Double.pi / 3)
    }
}

extension DynamicInitializer {
    /// The gyro bias minimising `VisualGyroBias`'s cost, by Newton steps with finite-difference derivatives from
    /// `start`; nil when the window has too few shared tracks.
    func visualGyroBias(frames: [WindowFrame], buffer: IMUBuffer, tracks: Tracks, start: Vec3) -> Vec3? {
        let solver = VisualGyroBias(T_B_C: cameras[0].T_B_C)
        let pairs = VisualGyroBias.pairs(frameCount: frames.count)
        guard !pairs.isEmpty else { return nil }
        let bearings = VisualGyroBias.bearings(tracks: tracks, pairs: pairs)
        func f(_ b: Vec3) -> Double { solver.cost(bearings, rot: integrate(frames: frames, buffer: buffer, gyroBias: b).rot) }
        var b = start
        var c = f(b)
        guard c.isFinite, c > 0 else { return nil }
        let h = 0.002
        for _ in 0..<10 {
            var g = Vec3.zero
            var H = Mat3.zero
            var e = [Vec3(h, 0, 0), Vec3(0, h, 0), Vec3(0, 0, h)]
            var fp = [Double](repeating: 0, count: 3), fm = [Double](repeating: 0, count: 3)
            for i in 0..<3 { fp[i] = f(b + e[i]); fm[i] = f(b - e[i]); g[i] = (fp[i] - fm[i]) / (2 * h) }
            for i in 0..<3 {
                H[i, i] = (fp[i] - 2 * c + fm[i]) / (h * h)
                for j in (i + 1)..<3 {
                    let v = (f(b + e[i] + e[j]) - fp[i] - fp[j] + c) / (h * h)
                    H[i, j] = v; H[j, i] = v
                }
            }
            e.removeAll()
            var step = abs(H.determinant) > 0 ? -1 * (H.inverse * g) : -1e-3 * g
            if step.dot(g) >= 0 { step = -(0.01 / max(g.norm, 1e-12)) * g }
            if step.norm > 0.05 { step = (0.05 / step.norm) * step }
            var accepted = false
            for _ in 0..<6 {
                let trial = f(b + step)
                if trial < c { b = b + step; c = trial; accepted = true; break }
                step = 0.5 * step
            }
            if !accepted || step.norm < 1e-5 { break }
        }
        return b
    }
}
