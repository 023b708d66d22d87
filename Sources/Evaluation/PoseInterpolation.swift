import Foundation
import Geometry

/// Interpolation between two timed poses: slerp for the rotation, lerp for the translation
/// (Geometry's `SE3.interpolate`), by time.
public enum PoseInterpolation {
    /// The pose a fraction `s` (0 → `a`, 1 → `b`) of the way from `a` to `b`.
    public static func interpolate(_ a: SE3, _ b: SE3, fraction s: Double) -> SE3 {
        SE3.interpolate(a, b, s)
    }

    /// The pose at time `t` between poses at `t0` and `t1` (`t0 < t1`, `t0 ≤ t ≤ t1`, nanoseconds).
    public static func interpolate(_ a: SE3, at t0: Int64, _ b: SE3, at t1: Int64, time t: Int64) -> SE3 {
        guard t1 > t0 else { return a }
        return SE3.interpolate(a, b, Double(t - t0) / Double(t1 - t0))
    }
}
