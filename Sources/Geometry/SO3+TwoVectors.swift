import Foundation

extension SO3 {
    /// The minimal rotation (about the axis `a × b`) taking the direction of `a` to the direction of `b`:
    /// `fromTwoVectors(a, b).act(a.normalized) ≈ b.normalized`. Lengths are ignored.
    ///
    /// Typical use, gravity alignment at rest: `SO3.fromTwoVectors(accelMean_B, Vec3(0, 0, 1))` is an `R_W_B`
    /// (world z up) that tilts the body without adding any turn about the body's own up direction; its yaw is
    /// then arbitrary, as gravity cannot observe it. For opposite vectors the axis is an arbitrary one
    /// perpendicular to `a`; if either vector is zero or not finite the identity is returned.
    public static func fromTwoVectors(_ a: Vec3, _ b: Vec3) -> SO3 {
        let na = a.norm, nb = b.norm
        guard na > 0, nb > 0, na.isFinite, nb.isFinite else { return .identity }
        let u = a / na, v = b / nb
        let c = u.dot(v)
        if c < -1 + 1e-12 {
            // Nearly opposite (within ~1.4e-6 rad of 180°): the axis u × v is ill-conditioned. Turn u to −u by π
            // about an axis p ⊥ u (cross with the least-aligned basis vector), then −u to v by the well-conditioned
            // minimal rotation: the result maps u to v to rounding and differs from the minimal one by < 1.4e-6 rad.
            let basis = abs(u.x) < 0.6 ? Vec3(1, 0, 0) : (abs(u.y) < 0.6 ? Vec3(0, 1, 0) : Vec3(0, 0, 1))
            let halfTurn = SO3(Quaternion(scalar: 0, vector: u.cross(basis).normalized))
            return SO3(Quaternion(scalar: 1 - c, vector: (-u).cross(v))) * halfTurn
        }
        // q = (1 + u·v, u × v) normalised is the half-angle quaternion of the minimal rotation.
        return SO3(Quaternion(scalar: 1 + c, vector: u.cross(v)))
    }
}
