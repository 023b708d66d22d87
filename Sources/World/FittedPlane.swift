import Foundation
import Geometry
import LinearAlgebra

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
    /// The points' (weighted) variance along the in-plane axis they spread least along, m²: with `rms_m` and `count`
    /// it says how well the normal is known.
    public var minorVariance_m2: Double = 0

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
        return FittedPlane(centroid: c, normal: n, rms_m: Swift.max(0, eig.values.x).squareRoot(), count: points.count,
                           minorVariance_m2: eig.values.y)
    }
}
