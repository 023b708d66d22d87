import Foundation
import Geometry
import Sensors

/// The absolute trajectory error (ATE) of associated pairs after alignment.
public struct AbsoluteTrajectoryError: Equatable, Sendable {
    /// Time of each pair, nanoseconds.
    public var times_ns: [TimestampNs]
    /// Position error `|p_gt − p_aligned|` of each pair, metres.
    public var positionErrors_m: [Double]
    /// Rotation error angle of `R_gtᵀ R_aligned` of each pair, degrees.
    public var rotationErrors_deg: [Double]
    /// Statistics of `positionErrors_m` (metres).
    public var position: ErrorStatistics
    /// Statistics of `rotationErrors_deg` (degrees).
    public var rotation: ErrorStatistics

    /// ATE of `pairs`, the estimate mapped into the ground-truth frame by `alignment`.
    public init(pairs: [AssociatedPair], alignment: SimilarityTransform) {
        times_ns = pairs.map(\.t_ns)
        var pos: [Double] = [], rot: [Double] = []
        pos.reserveCapacity(pairs.count); rot.reserveCapacity(pairs.count)
        for pair in pairs {
            let aligned = alignment.act(pair.estimate)
            pos.append((pair.groundTruth.translation - aligned.translation).norm)
            rot.append((pair.groundTruth.rotation.inverse * aligned.rotation).angle * 180 / .pi)
        }
        positionErrors_m = pos
        rotationErrors_deg = rot
        position = ErrorStatistics(pos)
        rotation = ErrorStatistics(rot)
    }
}
