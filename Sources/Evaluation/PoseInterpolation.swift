import Foundation
import Geometry

/// Interpolation between two poses: spherical-linear for the rotation, linear for the translation.
///
/// A local helper: Geometry has no `SE3.interpolate` on main yet. The result is
/// `T(s) = (R_a · exp(s · log(R_aᵀ R_b)), (1 − s) p_a + s p_b)`, which is slerp on the shorter arc.
public enum PoseInterpolation {
    /// The pose a fraction `s` (0 → `a`, 1 → `b`) of the way from `a` to `b`.
    public static func interpolate(_ a: SE3, _ b: SE3, fraction s: Double) -> SE3 {
        let delta = (a.rotation.inverse * b.rotation).log
        let rotation = a.rotation * SO3.exp(s * delta)
        return SE3(rotation: rotation, translation: (1 - s) * a.translation + s * b.translation)
    }

    /// The pose at time `t_ns` between poses at `t0` and `t1` (`t0 < t1`, `t0 ≤ t ≤ t1`).
    public static func interpolate(_ a: SE3, at t0: Int64, _ b: SE3, at t1: Int64, time t: Int64) -> SE3 {
        guard t1 > t0 else { return a }
        return interpolate(a, b, fraction: Double(t - t0) / Double(t1 - t0))
    }
}
