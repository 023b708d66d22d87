extension Mat3 {
    /// The Frobenius norm `sqrt(Σ m_ij²)`.
    public var frobeniusNorm: Double { (r0.squaredNorm + r1.squaredNorm + r2.squaredNorm).squareRoot() }

    /// Scalar multiple.
    @inlinable public static func * (m: Mat3, s: Double) -> Mat3 { s * m }

    /// `½ (M + Mᵀ)`, the symmetric part (for 3×3 covariance blocks).
    public var symmetrized: Mat3 { 0.5 * (self + transposed) }

    /// True when `MᵀM = I` and `det M = +1` to within `tolerance` (Frobenius norm / absolute).
    public func isRotation(tolerance: Double = 1e-9) -> Bool {
        (transposed * self - .identity).frobeniusNorm <= tolerance && abs(determinant - 1) <= tolerance
    }
}
