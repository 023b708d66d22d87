import Geometry
import Sensors

/// One estimated pose matched with the ground-truth pose at (or interpolated to) the same time.
public struct AssociatedPair: Equatable, Sendable {
    /// Time of the estimate, nanoseconds.
    public var t_ns: TimestampNs
    /// Estimated pose `T_W_B` in the estimate's world frame.
    public var estimate: SE3
    /// Ground-truth pose `T_W_B` in the ground-truth world frame, at `t_ns` when interpolated.
    public var groundTruth: SE3

    public init(t_ns: TimestampNs, estimate: SE3, groundTruth: SE3) {
        self.t_ns = t_ns; self.estimate = estimate; self.groundTruth = groundTruth
    }
}

/// How ground truth is matched to each estimate.
public enum AssociationMode: String, Sendable, CaseIterable {
    /// Interpolate the ground truth at the estimate's time when it has samples within `maxDt` on both
    /// sides (dense ground truth, the EuRoC case: 200 Hz against a 20 Hz estimate), else take the nearest
    /// ground-truth sample within `maxDt`.
    case interpolate
    /// Take the nearest ground-truth sample within `maxDt`, as evo does (`max_diff`, no interpolation).
    case nearest
}

/// Matching of estimated poses to ground truth by timestamp.
public enum Association {
    /// Default largest time difference between an estimate and its ground truth: 10 ms (evo's default).
    public static let defaultMaxDt_ns: TimestampNs = 10_000_000

    /// Pairs each estimate with ground truth at the same time.
    ///
    /// Both inputs must be sorted by strictly increasing time. Estimates with no ground truth within
    /// `maxDt_ns` are dropped. With `.nearest`, the nearest ground-truth sample is used (ties go to the
    /// earlier one); with `.interpolate` the ground truth is interpolated (slerp + lerp) between the two
    /// samples around the estimate when both lie within `maxDt_ns` of it.
    public static func associate(estimate: [StampedPose], groundTruth: [StampedPose],
                                 maxDt_ns: TimestampNs = defaultMaxDt_ns,
                                 mode: AssociationMode = .interpolate) -> [AssociatedPair] {
        guard !groundTruth.isEmpty else { return [] }
        var pairs: [AssociatedPair] = []
        pairs.reserveCapacity(estimate.count)
        var j = 0  // first ground-truth index with time ≥ current estimate time
        for e in estimate {
            while j < groundTruth.count && groundTruth[j].t_ns < e.t_ns { j += 1 }
            let after = j < groundTruth.count ? groundTruth[j] : nil
            let before = j > 0 ? groundTruth[j - 1] : nil
            let dtAfter = after.map { $0.t_ns - e.t_ns }
            let dtBefore = before.map { e.t_ns - $0.t_ns }
            if let after, dtAfter == 0 {
                pairs.append(AssociatedPair(t_ns: e.t_ns, estimate: e.pose, groundTruth: after.pose))
                continue
            }
            if mode == .interpolate, let before, let after, let a = dtBefore, let b = dtAfter,
               a <= maxDt_ns, b <= maxDt_ns {
                let gt = PoseInterpolation.interpolate(before.pose, at: before.t_ns, after.pose, at: after.t_ns, time: e.t_ns)
                pairs.append(AssociatedPair(t_ns: e.t_ns, estimate: e.pose, groundTruth: gt))
                continue
            }
            // Nearest sample; on a tie the earlier one (evo's argmin picks the first).
            var best: StampedPose?
            var bestDt = TimestampNs.max
            if let before, let a = dtBefore { best = before; bestDt = a }
            if let after, let b = dtAfter, b < bestDt { best = after; bestDt = b }
            if let best, bestDt <= maxDt_ns {
                pairs.append(AssociatedPair(t_ns: e.t_ns, estimate: e.pose, groundTruth: best.pose))
            }
        }
        return pairs
    }
}
