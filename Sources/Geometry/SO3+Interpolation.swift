import Foundation

extension Quaternion {
    /// The 4-D dot product `a·b` (cosine of half the angle between two unit quaternions' rotations, up to sign).
    @inlinable public func dot(_ o: Quaternion) -> Double { w * o.w + x * o.x + y * o.y + z * o.z }

    /// Spherical linear interpolation between unit quaternions along the shorter arc: `t = 0` gives `a`,
    /// `t = 1` gives `b` (or `−b`, the same rotation), with constant angular rate in between. `t` outside
    /// [0, 1] extrapolates along the same great circle. Falls back to normalised linear interpolation
    /// when the two are within ~1e-6 rad, where the two agree to rounding.
    public static func slerp(_ a: Quaternion, _ b: Quaternion, _ t: Double) -> Quaternion {
        var b = b
        var d = a.dot(b)
        if d < 0 { b = Quaternion(w: -b.w, x: -b.x, y: -b.y, z: -b.z); d = -d }
        let wa: Double, wb: Double
        if d > 1 - 1e-12 {
            wa = 1 - t; wb = t
        } else {
            let omega = acos(Swift.min(d, 1)) // half the rotation angle between a and b
            let s = sin(omega)
            wa = sin((1 - t) * omega) / s; wb = sin(t * omega) / s
        }
        let q = Quaternion(w: wa * a.w + wb * b.w, x: wa * a.x + wb * b.x, y: wa * a.y + wb * b.y, z: wa * a.z + wb * b.z)
        let n = q.norm
        return Quaternion(w: q.w / n, x: q.x / n, y: q.y / n, z: q.z / n)
    }
}

extension SO3 {
    /// Geodesic interpolation `a · exp(t · log(a⁻¹ b))`: `t = 0` gives `a`, `t = 1` gives `b`, constant
    /// angular rate about a fixed axis, along the shorter way (the relative angle is taken in [0, π]).
    public static func slerp(_ a: SO3, _ b: SO3, _ t: Double) -> SO3 {
        a * SO3.exp(t * (a.inverse * b).log)
    }

    /// The angle in radians, in [0, π], of the rotation taking `self` to `other` (`|log(self⁻¹ other)|`).
    public func angle(to other: SO3) -> Double { (inverse * other).angle }
}
