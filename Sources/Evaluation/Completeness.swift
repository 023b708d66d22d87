import Sensors

/// The share of the ground-truth time span during which the estimate was tracking.
///
/// Definition (time coverage): the ground-truth span `[t_gt_first, t_gt_last]` is compared with the
/// intervals between consecutive estimated poses; an interval counts as tracked when it is at most
/// `gapTolerance_ns` long (a longer interval is a tracking gap). Completeness is the length of the
/// tracked intervals inside the span divided by the span. An estimate that starts late or stops early
/// loses the uncovered ends. The default gap tolerance is 3 × the median interval of the estimate, and at
/// least 2 × the association `maxDt`.
public enum Completeness {
    /// The default gap tolerance for an estimate with the given timestamps (sorted), nanoseconds.
    public static func defaultGapTolerance(estimateTimes: [TimestampNs], maxDt_ns: TimestampNs) -> TimestampNs {
        var intervals: [TimestampNs] = []
        intervals.reserveCapacity(max(0, estimateTimes.count - 1))
        for k in estimateTimes.indices.dropFirst() { intervals.append(estimateTimes[k] - estimateTimes[k - 1]) }
        let median = intervals.isEmpty ? 0 : intervals.sorted()[intervals.count / 2]
        // Saturating: times are non-negative Int64, but 3 × a huge interval must not trap.
        let (three, o1) = median.multipliedReportingOverflow(by: 3)
        let (two, o2) = maxDt_ns.multipliedReportingOverflow(by: 2)
        return max(o1 ? .max : three, o2 ? .max : two)
    }

    /// Completeness in [0, 1] of an estimate (sorted timestamps) against the ground-truth span.
    public static func compute(estimateTimes: [TimestampNs], groundTruthStart: TimestampNs, groundTruthEnd: TimestampNs,
                               gapTolerance_ns: TimestampNs) -> Double {
        let span = groundTruthEnd - groundTruthStart
        guard span > 0 else {
            // A single ground-truth instant: complete when an estimate lies on it.
            return estimateTimes.contains(groundTruthStart) ? 1 : 0
        }
        var covered: TimestampNs = 0
        for k in estimateTimes.indices.dropFirst() {
            let a = estimateTimes[k - 1], b = estimateTimes[k]
            guard b - a <= gapTolerance_ns else { continue }
            let lo = max(a, groundTruthStart), hi = min(b, groundTruthEnd)
            if hi > lo { covered += hi - lo }
        }
        return Double(covered) / Double(span)
    }
}
