import Foundation
import Geometry
import Sensors

/// The tilt error of associated pairs: the angle between the vertical of the estimate's world and the vertical of the
/// ground truth's world, both seen in the body frame (`R_W_Bᵀ · z_W`), per pair.
///
/// A visual-inertial estimator puts its world's z against the gravity its accelerometer feels, so this is the error
/// of its gravity direction in the body: what roll and pitch it has wrong, whatever its yaw and position. It needs no
/// alignment (a yaw and a translation leave z alone, so a posyaw alignment does not change it) and is meaningful only
/// when both worlds are z-up against gravity: a visual-inertial estimate, and a ground truth levelled to gravity
/// (`eval --level-groundtruth`, ``GroundTruthGravity``). Against a ground truth used as given, a tilt of its frame
/// (EuRoC V1_01: 0.24°) enters every pair, up to that angle.
public struct TiltError: Equatable, Sendable {
    /// Time of each pair, nanoseconds.
    public var times_ns: [TimestampNs]
    /// Tilt error of each pair, degrees.
    public var errors_deg: [Double]
    /// Statistics of `errors_deg` (degrees).
    public var statistics: ErrorStatistics

    /// The tilt error of `pairs` (the raw estimate; no alignment is involved).
    public init(pairs: [AssociatedPair]) {
        times_ns = pairs.map(\.t_ns)
        let z = Vec3(0, 0, 1)
        errors_deg = pairs.map { pair in
            let up_est_B = pair.estimate.rotation.inverse.act(z)
            let up_gt_B = pair.groundTruth.rotation.inverse.act(z)
            // atan2 of the cross and dot products: accurate at the small angles that matter here.
            return atan2(up_est_B.cross(up_gt_B).norm, up_est_B.dot(up_gt_B)) * 180 / .pi
        }
        statistics = ErrorStatistics(errors_deg)
    }

    /// The tilt error of `pairs` against gravity: each ground-truth pose taken into the world `gravity` levels
    /// (``GroundTruthGravity/levelled(_:)``) first, so a tilt of the ground truth's own frame does not count.
    public init(pairs: [AssociatedPair], levelledBy gravity: GroundTruthGravity) {
        self.init(pairs: pairs.map {
            AssociatedPair(t_ns: $0.t_ns, estimate: $0.estimate, groundTruth: gravity.levelled($0.groundTruth))
        })
    }
}
