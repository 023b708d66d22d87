import Foundation

extension SE3 {
    /// The exponential map of SE(3). The twist is `(rho, phi)`, translation part first (Barfoot/Sophus order):
    /// `rho` in metres, `phi` a rotation vector in radians.
    ///
    /// Result: rotation `exp(phi)`, translation `Jl(phi) · rho` (`SO3.leftJacobian`). For constant body
    /// twist, this is the pose after unit time of motion along the screw.
    public static func exp(_ xi: (rho: Vec3, phi: Vec3)) -> SE3 {
        SE3(rotation: SO3.exp(xi.phi), translation: SO3.leftJacobian(xi.phi) * xi.rho)
    }

    /// `exp((rho: rho, phi: phi))`.
    public static func exp(rho: Vec3, phi: Vec3) -> SE3 { exp((rho: rho, phi: phi)) }

    /// The logarithm map, inverse of `exp`: `phi = log(R)` (angle in [0, π]), `rho = Jl⁻¹(phi) · t`.
    public var log: (rho: Vec3, phi: Vec3) {
        let phi = rotation.log
        return (SO3.leftJacobianInverse(phi) * translation, phi)
    }

    /// Interpolates between two poses: rotation by `SO3.slerp` (geodesic, constant angular rate) and
    /// translation by linear interpolation, independently — not the screw motion `a · exp(t log(a⁻¹ b))`.
    /// `t = 0` gives `a`, `t = 1` gives `b`. Matches how trajectories sampled from ground truth are resampled.
    public static func interpolate(_ a: SE3, _ b: SE3, _ t: Double) -> SE3 {
        SE3(rotation: SO3.slerp(a.rotation, b.rotation, t),
            translation: a.translation + t * (b.translation - a.translation))
    }
}
