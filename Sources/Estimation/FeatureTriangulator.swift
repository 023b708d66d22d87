import Foundation
import Geometry

/// One bearing of a feature for triangulation: the camera's pose and the undistorted normalised point.
struct BearingObservation {
    /// Pose of the observing camera in W.
    var T_W_C: SE3
    /// Undistorted normalised coordinates `(x/z, y/z)`.
    var normalized: Vec2
}

/// A triangulated point and a rough 1-σ accuracy.
struct TriangulatedPoint {
    var p_W: Vec3
    /// Approximate position std from the Gauss–Newton information and the measurement noise, metres.
    var std_m: Double
}

/// Triangulates a feature from two or more bearings.
///
/// Anchored in the first observing camera A: a linear least-squares intersection of the rays gives the
/// start, then Gauss–Newton (Levenberg–Marquardt damped) refines the inverse-depth parameters
/// `(α, β, ρ)` with `p_A = (α, β, 1)/ρ`, which stays well-conditioned for distant points.
struct FeatureTriangulator {
    var minDepth: Double = 0.1
    var maxDepth: Double = 60
    /// Reject if any reprojection error exceeds this, in normalised units (≈ pixels / f).
    var maxReprojection: Double = 0.05
    /// Measurement std in normalised units (for `std_m`).
    var sigma: Double = 1.0 / 460

    func triangulate(_ obs: [BearingObservation]) -> TriangulatedPoint? {
        guard obs.count >= 2 else { return nil }
        let T_A_W = obs[0].T_W_C.inverse
        // Ray origins and directions in A.
        var A = Mat3.zero, b = Vec3.zero
        var rel: [SE3] = [] // T_C_A per observation
        for o in obs {
            let T_A_C = T_A_W * o.T_W_C
            rel.append(T_A_C.inverse)
            let d = T_A_C.rotation.act(Vec3(o.normalized.x, o.normalized.y, 1)).normalized
            let Pm = Mat3.identity - Mat3.outer(d, d)
            A = A + Pm
            b = b + Pm * T_A_C.translation
        }
        // Parallel rays (no parallax) give no depth.
        guard abs(A.determinant) > 1e-12 else { return nil }
        let p0 = A.inverse * b
        guard p0.z > minDepth, p0.z < maxDepth * 2, p0.isFinite else { return nil }

        // Gauss–Newton on inverse depth.
        var x = Vec3(p0.x / p0.z, p0.y / p0.z, 1 / p0.z)
        var lambda = 1e-3
        func cost(_ x: Vec3) -> Double? {
            var c = 0.0
            for (k, o) in obs.enumerated() {
                let R = rel[k].rotation, t = rel[k].translation
                let h = R.act(Vec3(x.x, x.y, 1)) + x.z * t
                guard h.z > 1e-9 else { return nil }
                let e = Vec2(h.x / h.z, h.y / h.z) - o.normalized
                c += e.dot(e)
            }
            return c
        }
        guard var current = cost(x) else { return nil }
        var info = Mat3.zero
        for _ in 0..<10 {
            var H = Mat3.zero, g = Vec3.zero
            for (k, o) in obs.enumerated() {
                let R = rel[k].rotation.matrix, t = rel[k].translation
                let h = R * Vec3(x.x, x.y, 1) + x.z * t
                let iz = 1 / h.z
                let e = Vec2(h.x * iz, h.y * iz) - o.normalized
                // dz/dh (2×3) times dh/dx = [R col0, R col1, t].
                let dh = Mat3(columns: R.column(0), R.column(1), t)
                let j0 = (dh.row(0) - (h.x * iz) * dh.row(2)) * iz
                let j1 = (dh.row(1) - (h.y * iz) * dh.row(2)) * iz
                H = H + Mat3.outer(j0, j0) + Mat3.outer(j1, j1)
                g = g + e.x * j0 + e.y * j1
            }
            info = H
            var damped = H
            for i in 0..<3 { damped[i, i] *= (1 + lambda) }
            guard abs(damped.determinant) > 1e-30 else { return nil }
            let dx = -(damped.inverse * g)
            let trial = x + dx
            if let c = cost(trial), c < current {
                x = trial; current = c; lambda = max(lambda / 10, 1e-9)
                if dx.norm < 1e-10 * max(1, x.norm) { break }
            } else {
                lambda *= 10
                if lambda > 1e6 { break }
            }
        }
        let depth = 1 / x.z
        guard x.z > 0, depth > minDepth, depth < maxDepth else { return nil }
        // Every camera must see the point in front, with a small reprojection error.
        for (k, o) in obs.enumerated() {
            let p_C = rel[k].act(Vec3(x.x, x.y, 1) * depth)
            guard p_C.z > minDepth * 0.5 else { return nil }
            let e = Vec2(p_C.x / p_C.z, p_C.y / p_C.z) - o.normalized
            if e.norm > maxReprojection { return nil }
        }
        let p_A = Vec3(x.x, x.y, 1) * depth
        // Position covariance ≈ J Σ_x Jᵀ with Σ_x = σ² (JᵀJ)⁻¹.
        var std = Double.infinity
        if abs(info.determinant) > 1e-30 {
            let cov = (sigma * sigma) * info.inverse
            let r = x.z
            let J = Mat3(rows: Vec3(1 / r, 0, -x.x / (r * r)), Vec3(0, 1 / r, -x.y / (r * r)), Vec3(0, 0, -1 / (r * r)))
            std = (J * cov * J.transposed).trace.squareRoot()
        }
        return TriangulatedPoint(p_W: obs[0].T_W_C.act(p_A), std_m: std)
    }
}
