import Foundation
import Geometry
import LinearAlgebra
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

    /// The cost of gyro rotations `rot` (`R_B0_Bk` per frame) for the window's camera-0 tracks.
    func cost(tracks: DynamicInitializer.Tracks, rot: [SO3], pairs: [(Int, Int)]) -> Double {
        let R_B_C = T_B_C.rotation
        var total = 0.0
        for (i, k) in pairs {
            let R_Ck_Ci = (R_B_C.inverse * rot[k].inverse * rot[i] * R_B_C).matrix
            var M = Mat3.zero
            var count = 0
            for id in tracks.keys.sorted() {   // a fixed order: the sums are then the same on every run
                guard let obs = tracks[id], let a = obs.first(where: { $0.0 == i && $0.1 == 0 })?.2,
                      let b = obs.first(where: { $0.0 == k && $0.1 == 0 })?.2 else { continue }
                let xi = Vec3(a.x, a.y, 1).normalized, xk = Vec3(b.x, b.y, 1).normalized
                let u = (R_Ck_Ci * xi).cross(xk)
                M = M + Mat3.outer(u, u)
                count += 1
            }
            guard count >= 8 else { continue }
            total += Self.smallestEigenvalue(M) / Double(count)
        }
        return total
    }

    /// The smallest eigenvalue of a symmetric 3×3 matrix (closed form).
    static func smallestEigenvalue(_ m: Mat3) -> Double {
        let a = Matrix(rows: 3, columns: 3, rowMajor: [m[0, 0], m[0, 1], m[0, 2], m[1, 0], m[1, 1], m[1, 2], m[2, 0], m[2, 1], m[2, 2]])
        return (try? a.symmetrized().symmetricEigen().eigenvalues.first) ?? .infinity
    }
}

extension DynamicInitializer {
    /// The gyro bias minimising `VisualGyroBias`'s cost, by Newton steps with finite-difference derivatives from
    /// `start`; nil when the window has too few shared tracks.
    func visualGyroBias(frames: [WindowFrame], buffer: IMUBuffer, tracks: Tracks, start: Vec3) -> Vec3? {
        let solver = VisualGyroBias(T_B_C: cameras[0].T_B_C)
        let pairs = VisualGyroBias.pairs(frameCount: frames.count)
        guard !pairs.isEmpty else { return nil }
        func f(_ b: Vec3) -> Double { solver.cost(tracks: tracks, rot: integrate(frames: frames, buffer: buffer, gyroBias: b).rot, pairs: pairs) }
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
