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
    /// An observation reprojecting worse than this is an outlier, in normalised units (pixels / f).
    var maxReprojection: Double = 0.05
    /// Measurement std in normalised units (for `std_m`).
    var sigma: Double = 1.0 / 460

    /// Triangulates with outlier removal. If the point from all observations reprojects worse than
    /// `maxReprojection` somewhere, two-view hypotheses from well-separated pairs (first/last, first/middle,
    /// …) are scored by their inlier count (RANSAC-like, deterministic), the best inlier set is refined,
    /// and remaining offenders are dropped one by one. Returns the point and the kept observation indices.
    func triangulateRobust(_ obs: [BearingObservation]) -> (point: TriangulatedPoint, inliers: [Int])? {
        if let (point, errors) = solve(obs), errors.allSatisfy({ $0 <= maxReprojection }) {
            return (point, Array(obs.indices))
        }
        let n = obs.count
        guard n >= 3 else { return nil }
        let pairs = [(0, n - 1), (0, n / 2), (n / 2, n - 1), (1, n - 2), (0, n - 2), (1, n - 1)]
        var best: [Int] = []
        for (i, j) in pairs where i < j && j < n {
            guard let p = linearPoint([obs[i], obs[j]]) else { continue }
            let inliers = obs.indices.filter { k in
                let p_C = obs[k].T_W_C.inverse.act(p)
                guard p_C.z > minDepth else { return false }
                return (Vec2(p_C.x / p_C.z, p_C.y / p_C.z) - obs[k].normalized).norm <= 2 * maxReprojection
            }
            if inliers.count > best.count { best = inliers }
        }
        guard best.count >= max(2, (n + 1) / 2) else { return nil }
        var active = best
        for _ in 0..<max(1, active.count / 4) {
            guard active.count >= 2, let (point, errors) = solve(active.map { obs[$0] }),
                  let worst = errors.indices.max(by: { errors[$0] < errors[$1] }) else { return nil }
            if errors[worst] <= maxReprojection { return (point, active) }
            active.remove(at: worst)
        }
        return nil
    }

    /// The least-squares intersection of the observations' rays in W (nil if they are parallel).
    private func linearPoint(_ obs: [BearingObservation]) -> Vec3? {
        var A = Mat3.zero, b = Vec3.zero
        for o in obs {
            let d = o.T_W_C.rotation.act(Vec3(o.normalized.x, o.normalized.y, 1)).normalized
            let Pm = Mat3.identity - Mat3.outer(d, d)
            A = A + Pm
            b = b + Pm * o.T_W_C.translation
        }
        guard abs(A.determinant) > 1e-12 else { return nil }
        let p = A.inverse * b
        return p.isFinite ? p : nil
    }

    /// The least-squares point and each observation's reprojection error (normalised units); nil when
    /// the geometry is degenerate or the point is behind a camera or outside the depth range.
    private func solve(_ obs: [BearingObservation]) -> (TriangulatedPoint, [Double])? {
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
        // Every camera must see the point in front.
        var errors: [Double] = []
        for (k, o) in obs.enumerated() {
            let p_C = rel[k].act(Vec3(x.x, x.y, 1) * depth)
            guard p_C.z > minDepth * 0.5 else { return nil }
            errors.append((Vec2(p_C.x / p_C.z, p_C.y / p_C.z) - o.normalized).norm)
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
        return (TriangulatedPoint(p_W: obs[0].T_W_C.act(p_A), std_m: std), errors)
    }
}

extension FeatureTriangulator {
    /// The point on the plane `z = height + slope · ((x, y) − origin)` (W) that best fits `bearings` (Gauss–Newton
    /// on its x and y, from `start`'s), or nil when it falls behind a camera or does not converge. Used for a point
    /// held on the floor, so that its residuals are linearised where the floor puts it.
    static func onFloorPlane(_ bearings: [BearingObservation], height: Double, slope: SIMD2<Double> = .zero,
                             origin: SIMD2<Double> = .zero, start: Vec3) -> Vec3? {
        func z(_ x: Double, _ y: Double) -> Double { height + slope.x * (x - origin.x) + slope.y * (y - origin.y) }
        var p = Vec3(start.x, start.y, z(start.x, start.y))
        for _ in 0..<6 {
            var a00 = 0.0, a01 = 0.0, a11 = 0.0, b0 = 0.0, b1 = 0.0
            for o in bearings {
                let R_C_W = o.T_W_C.rotation.inverse.matrix
                let q = R_C_W * (p - o.T_W_C.translation)
                guard q.z > 1e-6 else { return nil }
                let iz = 1 / q.z
                let e = Vec2(o.normalized.x - q.x * iz, o.normalized.y - q.y * iz)
                // ∂(q.x/q.z, q.y/q.z)/∂(p.x, p.y): the first two columns of R_C_W, through the projection.
                // ∂p/∂x = (1, 0, s_x), ∂p/∂y = (0, 1, s_y), through R_C_W.
                let c0 = R_C_W * Vec3(1, 0, slope.x), c1 = R_C_W * Vec3(0, 1, slope.y)
                let jx0 = (c0.x - q.x * iz * c0.z) * iz, jy0 = (c0.y - q.y * iz * c0.z) * iz
                let jx1 = (c1.x - q.x * iz * c1.z) * iz, jy1 = (c1.y - q.y * iz * c1.z) * iz
                a00 += jx0 * jx0 + jy0 * jy0; a01 += jx0 * jx1 + jy0 * jy1; a11 += jx1 * jx1 + jy1 * jy1
                b0 += jx0 * e.x + jy0 * e.y; b1 += jx1 * e.x + jy1 * e.y
            }
            let det = a00 * a11 - a01 * a01
            guard det > 0, det.isFinite else { return nil }
            let dx = (a11 * b0 - a01 * b1) / det, dy = (a00 * b1 - a01 * b0) / det
            p = Vec3(p.x + dx, p.y + dy, z(p.x + dx, p.y + dy))
            if dx * dx + dy * dy < 1e-12 { break }
        }
        for o in bearings where o.T_W_C.inverse.act(p).z <= 1e-6 { return nil }
        return p
    }
}

