import Foundation
import Geometry

/// The 4-DoF alignment between two gravity-aligned world frames (a yaw about z and a translation) from points known
/// in one frame and seen as bearings from cameras posed in the other: `T_Ws_W = (Rz(θ), t)` with
/// `p_W = Rz(−θ)(p_Ws − t)` on the ray `o_W + λ a_W` of each correspondence.
///
/// Linear in `x = (cos θ, sin θ, w)` with `w = Rz(−θ) t`: `a × (Rz(−θ) p − w − o) = 0` gives two independent
/// equations per point, so three points determine it; more are solved in weighted least squares (the residual of a
/// point at depth d is about d times its angular error, whose variance is (σ_point / d)² + σ_ray²: the weight is
/// 1 / (σ_point² + d² σ_ray²), with the depths of the previous pass), then θ is renormalised and `w` solved again
/// with θ fixed.
enum YawTranslationSolver {
    /// A map point in the saved frame and the bearing it is seen along, in the current frame W.
    struct Correspondence {
        /// The point, saved frame, metres.
        var p_Ws: Vec3
        /// Unit bearing of the observation, W axes.
        var a_W: Vec3
        /// Camera centre, W, metres.
        var o_W: Vec3
        /// 1-σ of the point, metres.
        var std_m: Double = 0
    }

    /// `T_Ws_W`, or nil when the points do not determine it (fewer than 3, or degenerate).
    /// - Parameter rayStd_rad: the angular noise of an observed ray (a pixel's σ over the focal length).
    static func solve(_ c: [Correspondence], reweightings: Int = 2, rayStd_rad: Double = 0.002) -> SE3? {
        guard c.count >= 3 else { return nil }
        var weights = [Double](repeating: 1, count: c.count)
        var result: SE3?
        for pass in 0...reweightings {
            guard let T = solveOnce(c, weights: weights) else { return result }
            result = T
            guard pass < reweightings else { break }
            let T_W_Ws = T.inverse
            for i in c.indices {
                let d = (T_W_Ws.act(c[i].p_Ws) - c[i].o_W).norm
                weights[i] = 1 / max(c[i].std_m * c[i].std_m + d * d * rayStd_rad * rayStd_rad, 1e-8)
            }
        }
        return result
    }

    private static func skewRows(_ a: Vec3) -> [Vec3] { [Vec3(0, -a.z, a.y), Vec3(a.z, 0, -a.x), Vec3(-a.y, a.x, 0)] }

    private static func solveOnce(_ c: [Correspondence], weights: [Double]) -> SE3? {
        // Normal equations of the 5 unknowns (cos θ, sin θ, w).
        var N = [[Double]](repeating: [Double](repeating: 0, count: 5), count: 5)
        var r = [Double](repeating: 0, count: 5)
        for (k, e) in c.enumerated() {
            let p = e.p_Ws, o = e.o_W
            // v = M x + k
            let M: [[Double]] = [[p.x, p.y, -1, 0, 0], [p.y, -p.x, 0, -1, 0], [0, 0, 0, 0, -1]]
            let kv = Vec3(-o.x, -o.y, p.z - o.z)
            for s in skewRows(e.a_W) {
                let row = (0..<5).map { j in s.x * M[0][j] + s.y * M[1][j] + s.z * M[2][j] }
                let rhs = -s.dot(kv)
                for i in 0..<5 {
                    r[i] += weights[k] * row[i] * rhs
                    for j in 0..<5 { N[i][j] += weights[k] * row[i] * row[j] }
                }
            }
        }
        guard let x = solveLinear(N, r), (x[0] * x[0] + x[1] * x[1]) > 1e-12 else { return nil }
        let theta = atan2(x[1], x[0])
        let cs = cos(theta), sn = sin(theta)
        // θ fixed: w from [a]× w = [a]× (q − o), q = Rz(−θ) p.
        var N3 = [[Double]](repeating: [Double](repeating: 0, count: 3), count: 3)
        var r3 = [Double](repeating: 0, count: 3)
        for (k, e) in c.enumerated() {
            let p = e.p_Ws
            let q = Vec3(cs * p.x + sn * p.y, -sn * p.x + cs * p.y, p.z)
            let d = q - e.o_W
            for s in skewRows(e.a_W) {
                let row = [s.x, s.y, s.z], rhs = s.dot(d)
                for i in 0..<3 {
                    r3[i] += weights[k] * row[i] * rhs
                    for j in 0..<3 { N3[i][j] += weights[k] * row[i] * row[j] }
                }
            }
        }
        guard let w = solveLinear(N3, r3) else { return nil }
        let R = SO3(yaw: theta)
        let t = R.act(Vec3(w[0], w[1], w[2]))
        guard t.isFinite else { return nil }
        return SE3(rotation: R, translation: t)
    }

    /// Solves the symmetric system `A x = b` by Gaussian elimination with partial pivoting; nil when singular.
    static func solveLinear(_ A: [[Double]], _ b: [Double]) -> [Double]? {
        let n = b.count
        var a = A, y = b
        let scale = (0..<n).map { abs(A[$0][$0]) }.max() ?? 0
        guard scale > 0 else { return nil }
        for col in 0..<n {
            guard let pivot = (col..<n).max(by: { abs(a[$0][col]) < abs(a[$1][col]) }),
                  abs(a[pivot][col]) > 1e-12 * scale else { return nil }
            a.swapAt(col, pivot); y.swapAt(col, pivot)
            for row in (col + 1)..<n {
                let f = a[row][col] / a[col][col]
                if f == 0 { continue }
                for j in col..<n { a[row][j] -= f * a[col][j] }
                y[row] -= f * y[col]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for i in stride(from: n - 1, through: 0, by: -1) {
            var s = y[i]
            for j in (i + 1)..<n { s -= a[i][j] * x[j] }
            x[i] = s / a[i][i]
        }
        return x
    }
}
