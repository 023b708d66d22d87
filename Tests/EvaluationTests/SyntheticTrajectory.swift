import Foundation
import Geometry
import Sensors
import Evaluation

/// Deterministic test trajectories with exact poses at any time.
enum Synthetic {
    /// A smooth 3-D curve (a few metres across) with rotation about all three axes, at time `t` seconds.
    static func pose(at t: Double) -> SE3 {
        let p = Vec3(3 * cos(0.3 * t), 2 * sin(0.5 * t), 1 + 0.5 * sin(0.7 * t))
        let phi = Vec3(0.4 * sin(0.2 * t), 0.3 * cos(0.3 * t), 0.15 * t)
        return SE3(rotation: SO3.exp(phi), translation: p)
    }

    /// Poses of ``pose(at:)`` at `rate_hz` over `[start, start + duration]` seconds.
    static func trajectory(rate_hz: Double, duration: Double, start: Double = 0, offset_ns: Int64 = 0) -> [StampedPose] {
        let n = Int((duration * rate_hz).rounded())
        return (0...n).map { k in
            let t_ns = Time.nanoseconds(start + Double(k) / rate_hz) + offset_ns
            return StampedPose(t_ns: t_ns, pose: pose(at: Time.seconds(t_ns)))
        }
    }

    /// Applies `x ↦ s R x + t` (and `R` to orientations) to every pose: an estimate in another frame.
    static func transformed(_ poses: [StampedPose], by transform: SimilarityTransform) -> [StampedPose] {
        poses.map { StampedPose(t_ns: $0.t_ns, pose: transform.act($0.pose)) }
    }
}


/// A fresh temporary folder for file tests.
func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("wt-eval-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
