import Foundation

/// A rigid-body transform (an element of SE(3)).
///
/// Named by frames: `T_a_b` maps points in frame b to frame a, `p_a = T_a_b * p_b`,
/// and `T_a_b * T_b_c == T_a_c`. `translation` is the origin of b expressed in a, in metres.
public struct SE3: Equatable, Sendable, CustomStringConvertible {
    /// Rotation part `R_a_b`.
    public var rotation: SO3
    /// Translation part `p_a_b` (position of b's origin in a), metres.
    public var translation: Vec3

    @inlinable public init(rotation: SO3 = .identity, translation: Vec3 = .zero) {
        self.rotation = rotation
        self.translation = translation
    }
    /// A transform from a row-major 4×4 matrix (16 values; the last row is ignored).
    public init(rowMajor4x4 v: [Double]) {
        precondition(v.count >= 12, "SE3 needs a 3×4 or 4×4 row-major matrix")
        rotation = SO3(matrix: Mat3(rows: Vec3(v[0], v[1], v[2]), Vec3(v[4], v[5], v[6]), Vec3(v[8], v[9], v[10])))
        translation = Vec3(v[3], v[7], v[11])
    }

    public static let identity = SE3()

    /// The inverse transform (`T_b_a` for `T_a_b`).
    @inlinable public var inverse: SE3 {
        let rInv = rotation.inverse
        return SE3(rotation: rInv, translation: -rInv.act(translation))
    }
    /// Transforms a point.
    @inlinable public func act(_ p: Vec3) -> Vec3 { rotation.act(p) + translation }
    @inlinable public static func * (a: SE3, b: SE3) -> SE3 {
        SE3(rotation: a.rotation * b.rotation, translation: a.rotation.act(b.translation) + a.translation)
    }
    @inlinable public static func * (a: SE3, p: Vec3) -> Vec3 { a.act(p) }

    /// The row-major 4×4 homogeneous matrix.
    public var matrix4x4RowMajor: [Double] {
        let m = rotation.matrix
        return [m[0, 0], m[0, 1], m[0, 2], translation.x,
                m[1, 0], m[1, 1], m[1, 2], translation.y,
                m[2, 0], m[2, 1], m[2, 2], translation.z,
                0, 0, 0, 1]
    }

    public var description: String { "SE3(R: \(rotation.quaternion), t: \(translation))" }
}
