import Foundation

/// A 3-D rotation (an element of SO(3)), held as a unit Hamilton quaternion.
///
/// Named by the frames it maps between: `R_world_body.act(v_body) == v_world`.
/// Composition follows the subscripts: `R_a_b * R_b_c == R_a_c`.
/// Perturbations are on the right unless stated: `R ⊞ δ = R * exp(δ)`, δ in the body (right) frame.
public struct SO3: Equatable, Sendable, CustomStringConvertible {
    /// The unit quaternion (w ≥ 0 is not enforced after composition; both signs are the same rotation).
    public var quaternion: Quaternion

    /// A rotation from a quaternion, which is normalised.
    @inlinable public init(_ q: Quaternion) { quaternion = q.normalized }
    /// The rotation of a unit quaternion taken exactly as given (not normalised again), so that a rotation written
    /// out component by component reads back bit for bit. `q` must already have unit norm.
    public init(exactly q: Quaternion) { quaternion = q }
    /// A rotation from a rotation matrix (re-orthonormalised through the quaternion).
    public init(matrix: Mat3) { quaternion = Quaternion(rotationMatrix: matrix) }
    /// The rotation by `angle` radians about `axis`.
    public init(angle: Double, axis: Vec3) { quaternion = Quaternion(angle: angle, axis: axis) }

    public static let identity = SO3(Quaternion.identity)

    /// The rotation matrix.
    public var matrix: Mat3 { quaternion.matrix }
    /// The inverse rotation (`R_b_a` for `R_a_b`).
    @inlinable public var inverse: SO3 { SO3(unchecked: quaternion.conjugate) }
    @inlinable init(unchecked q: Quaternion) { quaternion = q }

    /// Rotates a vector.
    @inlinable public func act(_ v: Vec3) -> Vec3 { quaternion.act(v) }
    @inlinable public static func * (a: SO3, b: SO3) -> SO3 { SO3(unchecked: (a.quaternion * b.quaternion)) }
    @inlinable public static func * (a: SO3, v: Vec3) -> Vec3 { a.act(v) }

    /// The exponential map: the rotation by `|phi|` radians about `phi/|phi|` (rotation vector in radians).
    public static func exp(_ phi: Vec3) -> SO3 {
        let theta2 = phi.squaredNorm
        if theta2 < 1e-16 {
            // Second-order Taylor expansion keeps unit norm to machine precision.
            return SO3(Quaternion(scalar: 1 - theta2 / 8, vector: 0.5 * phi))
        }
        let theta = theta2.squareRoot()
        return SO3(unchecked: Quaternion(scalar: cos(theta / 2), vector: (sin(theta / 2) / theta) * phi))
    }

    /// The logarithm map: the rotation vector (radians) with angle in [0, π].
    public var log: Vec3 {
        var q = quaternion
        if q.w < 0 { q = Quaternion(w: -q.w, x: -q.x, y: -q.y, z: -q.z) }
        let vn = q.vector.norm
        if vn < 1e-12 { return 2 * q.vector / q.w }
        let theta = 2 * atan2(vn, q.w)
        return (theta / vn) * q.vector
    }

    /// The rotation angle in radians, in [0, π].
    public var angle: Double { log.norm }

    public var description: String { "SO3(\(quaternion))" }
}
