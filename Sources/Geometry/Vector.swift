/// A 3-vector of `Double`. The frame and unit of each value are named by the variable that holds it
/// (`p_world` in metres, `omega_body` in rad/s, …).
public typealias Vec3 = SIMD3<Double>

/// A 2-vector of `Double`, used for pixels (px) and normalised image coordinates (unitless).
public typealias Vec2 = SIMD2<Double>

extension SIMD3 where Scalar == Double {
    /// Dot product.
    @inlinable public func dot(_ other: Vec3) -> Double { (self * other).sum() }
    /// Cross product `self × other`.
    @inlinable public func cross(_ o: Vec3) -> Vec3 {
        Vec3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }
    /// Euclidean norm.
    @inlinable public var norm: Double { (self * self).sum().squareRoot() }
    /// Squared Euclidean norm.
    @inlinable public var squaredNorm: Double { (self * self).sum() }
    /// The unit vector in this direction (undefined for the zero vector).
    @inlinable public var normalized: Vec3 { self / norm }
    /// True when every component is finite.
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }
    /// The skew-symmetric (cross-product) matrix `[self]×`, so that `[a]× b == a × b`.
    @inlinable public var skew: Mat3 {
        Mat3(rows: Vec3(0, -z, y), Vec3(z, 0, -x), Vec3(-y, x, 0))
    }
}

extension SIMD2 where Scalar == Double {
    /// Euclidean norm.
    @inlinable public var norm: Double { (self * self).sum().squareRoot() }
    /// Dot product.
    @inlinable public func dot(_ other: Vec2) -> Double { (self * other).sum() }
}
