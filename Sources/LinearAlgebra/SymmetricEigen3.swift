import Foundation
import Geometry

/// Eigen-decomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations, and its closed-form largest
/// eigenvalue. (Dense symmetric matrices of any size: `Matrix.symmetricEigen()`, LAPACK's dsyevd.)
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

    /// The largest eigenvalue of a symmetric 3×3 matrix in closed form (Smith 1961: the trigonometric
    /// solution of the characteristic cubic), without the eigenvectors; a few flops against Jacobi's
    /// sweeps, for the per-frame 1-σ of a covariance block.
    public static func largestEigenvalue(_ a: Mat3) -> Double {
        let p1 = a[0, 1] * a[0, 1] + a[0, 2] * a[0, 2] + a[1, 2] * a[1, 2]
        let q = a.trace / 3
        if p1 < 1e-300 { return max(a[0, 0], a[1, 1], a[2, 2]) }
        let p2 = (a[0, 0] - q) * (a[0, 0] - q) + (a[1, 1] - q) * (a[1, 1] - q) + (a[2, 2] - q) * (a[2, 2] - q) + 2 * p1
        let p = (p2 / 6).squareRoot()
        let b = (1 / p) * (a - q * Mat3.identity)
        let r = max(-1, min(1, b.determinant / 2))
        let phi = acos(r) / 3
        return q + 2 * p * cos(phi)
    }
}
