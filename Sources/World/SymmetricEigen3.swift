import Foundation
import Geometry

/// Eigen-decomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations.
///
/// `values` are ascending; `vectors[i]` is the unit eigenvector of `values[i]`.
/// Used for PCA plane fits (the normal is the eigenvector of the smallest eigenvalue).
public struct SymmetricEigen3: Sendable {
    /// Eigenvalues, ascending.
    public let values: Vec3
    /// Unit eigenvectors matching `values`.
    public let vectors: [Vec3]

    /// Decomposes `m`, which must be symmetric (only its upper triangle is read).
    public init(_ m: Mat3) {
        var a = [[m[0, 0], m[0, 1], m[0, 2]], [m[0, 1], m[1, 1], m[1, 2]], [m[0, 2], m[1, 2], m[2, 2]]]
        var v = [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]]
        for _ in 0..<50 {
            let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
            let scale = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2] + off
            if off <= 1e-30 * Swift.max(scale, 1e-300) { break }
            for (p, q) in [(0, 1), (0, 2), (1, 2)] where abs(a[p][q]) > 0 {
                let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                let c = 1 / (t * t + 1).squareRoot(), s = t * c
                for k in 0..<3 { // A ← A J (columns p, q)
                    let akp = a[k][p], akq = a[k][q]
                    a[k][p] = c * akp - s * akq; a[k][q] = s * akp + c * akq
                }
                for k in 0..<3 { // A ← Jᵀ A (rows p, q)
                    let apk = a[p][k], aqk = a[q][k]
                    a[p][k] = c * apk - s * aqk; a[q][k] = s * apk + c * aqk
                }
                for k in 0..<3 {
                    let vkp = v[k][p], vkq = v[k][q]
                    v[k][p] = c * vkp - s * vkq; v[k][q] = s * vkp + c * vkq
                }
            }
        }
        let order = [0, 1, 2].sorted { a[$0][$0] < a[$1][$1] }
        values = Vec3(a[order[0]][order[0]], a[order[1]][order[1]], a[order[2]][order[2]])
        vectors = order.map { Vec3(v[0][$0], v[1][$0], v[2][$0]).normalized }
    }
}

/// A least-squares plane through weighted points (PCA of the weighted covariance).
public struct FittedPlane: Equatable, Sendable {
    /// Weighted centroid, world, metres.
    public var centroid: Vec3
    /// Unit normal (sign arbitrary unless the caller orients it).
    public var normal: Vec3
    /// RMS distance of the points to the plane, metres.
    public var rms_m: Double
    /// Number of points used.
    public var count: Int

    /// Fits a plane to `points` with optional `weights` (defaults to 1); `nil` for fewer than 3 points
    /// or a degenerate (collinear) set.
    public static func fit(_ points: [Vec3], weights: [Double]? = nil) -> FittedPlane? {
        guard points.count >= 3 else { return nil }
        let w = weights ?? [Double](repeating: 1, count: points.count)
        let wsum = w.reduce(0, +)
        guard wsum > 0 else { return nil }
        var c = Vec3.zero
        for (p, wi) in zip(points, w) { c += wi * p }
        c /= wsum
        var cov = Mat3.zero
        for (p, wi) in zip(points, w) { cov = cov + wi * Mat3.outer(p - c, p - c) }
        cov = (1 / wsum) * cov
        let eig = SymmetricEigen3(cov)
        guard eig.values.y > 1e-12 else { return nil } // collinear or coincident
        let n = eig.vectors[0]
        return FittedPlane(centroid: c, normal: n, rms_m: Swift.max(0, eig.values.x).squareRoot(), count: points.count)
    }
}
