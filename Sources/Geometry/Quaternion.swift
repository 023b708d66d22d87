import Foundation

/// A quaternion in Hamilton convention, stored `(w, x, y, z)` — the order ASL/EuRoC files use.
///
/// A unit quaternion `q_a_b` rotates vectors from frame b to frame a: `v_a = q_a_b.act(v_b)`,
/// and `q_a_b * q_b_c == q_a_c` (Hamilton product, the same order as rotation matrices).
public struct Quaternion: Equatable, Sendable, CustomStringConvertible {
    /// Scalar part.
    public var w: Double
    /// Vector part.
    public var x: Double, y: Double, z: Double

    @inlinable public init(w: Double, x: Double, y: Double, z: Double) { self.w = w; self.x = x; self.y = y; self.z = z }
    /// A quaternion from its scalar and vector parts.
    @inlinable public init(scalar w: Double, vector v: Vec3) { self.init(w: w, x: v.x, y: v.y, z: v.z) }
    /// The rotation by `angle` radians about the unit `axis` (right-handed).
    @inlinable public init(angle: Double, axis: Vec3) {
        let h = angle / 2
        self.init(scalar: cos(h), vector: sin(h) * axis.normalized)
    }

    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// Vector part.
    @inlinable public var vector: Vec3 { Vec3(x, y, z) }
    /// Norm.
    @inlinable public var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }
    /// This quaternion scaled to unit norm, with `w ≥ 0` (the canonical one of the pair ±q).
    @inlinable public var normalized: Quaternion {
        let n = norm * (w < 0 ? -1 : 1)
        return Quaternion(w: w / n, x: x / n, y: y / n, z: z / n)
    }
    /// The conjugate, which for a unit quaternion is the inverse rotation.
    @inlinable public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

    /// Hamilton product.
    @inlinable public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                   x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                   z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    /// Rotates `v` (unit quaternion assumed).
    @inlinable public func act(_ v: Vec3) -> Vec3 {
        let u = vector
        let t = 2 * u.cross(v)
        return v + w * t + u.cross(t)
    }

    /// The rotation matrix of this unit quaternion.
    public var matrix: Mat3 {
        let ww = w * w, xx = x * x, yy = y * y, zz = z * z
        let xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z
        return Mat3(rows: Vec3(ww + xx - yy - zz, 2 * (xy - wz), 2 * (xz + wy)),
                    Vec3(2 * (xy + wz), ww - xx + yy - zz, 2 * (yz - wx)),
                    Vec3(2 * (xz - wy), 2 * (yz + wx), ww - xx - yy + zz))
    }

    /// The unit quaternion of a rotation matrix (Shepperd's method; numerically stable).
    public init(rotationMatrix m: Mat3) {
        let tr = m.trace
        if tr > 0 {
            let s = (tr + 1).squareRoot() * 2
            self.init(w: s / 4, x: (m[2, 1] - m[1, 2]) / s, y: (m[0, 2] - m[2, 0]) / s, z: (m[1, 0] - m[0, 1]) / s)
        } else if m[0, 0] > m[1, 1] && m[0, 0] > m[2, 2] {
            let s = (1 + m[0, 0] - m[1, 1] - m[2, 2]).squareRoot() * 2
            self.init(w: (m[2, 1] - m[1, 2]) / s, x: s / 4, y: (m[0, 1] + m[1, 0]) / s, z: (m[0, 2] + m[2, 0]) / s)
        } else if m[1, 1] > m[2, 2] {
            let s = (1 + m[1, 1] - m[0, 0] - m[2, 2]).squareRoot() * 2
            self.init(w: (m[0, 2] - m[2, 0]) / s, x: (m[0, 1] + m[1, 0]) / s, y: s / 4, z: (m[1, 2] + m[2, 1]) / s)
        } else {
            let s = (1 + m[2, 2] - m[0, 0] - m[1, 1]).squareRoot() * 2
            self.init(w: (m[1, 0] - m[0, 1]) / s, x: (m[0, 2] + m[2, 0]) / s, y: (m[1, 2] + m[2, 1]) / s, z: s / 4)
        }
        self = normalized
    }

    public var description: String { "Quaternion(w: \(w), x: \(x), y: \(y), z: \(z))" }
}
