import Geometry
import Sensors

/// A time-ordered store of IMU samples with linear interpolation between them.
///
/// Samples must arrive in increasing time; out-of-order or duplicate samples are dropped.
struct IMUBuffer {
    private(set) var samples: [IMUSample] = []

    var isEmpty: Bool { samples.isEmpty }
    var last: IMUSample? { samples.last }
    var first: IMUSample? { samples.first }

    /// Appends a sample; returns false (and drops it) when it is not newer than the last one or not finite.
    @discardableResult
    mutating func append(_ s: IMUSample) -> Bool {
        guard s.gyro_B.isFinite, s.accel_B.isFinite else { return false }
        if let l = samples.last, s.t_ns <= l.t_ns { return false }
        samples.append(s)
        return true
    }

    /// Forgets samples strictly older than the last sample at or before `t_ns` (that one is kept for
    /// interpolation).
    mutating func prune(before t_ns: TimestampNs) {
        guard let idx = samples.lastIndex(where: { $0.t_ns <= t_ns }), idx > 0 else { return }
        samples.removeFirst(idx)
    }

    /// The measurement at `t_ns`, linearly interpolated; held constant outside the stored span.
    func sample(at t_ns: TimestampNs) -> IMUSample? {
        guard let f = samples.first, let l = samples.last else { return nil }
        if t_ns <= f.t_ns { return IMUSample(t_ns: t_ns, gyro_B: f.gyro_B, accel_B: f.accel_B) }
        if t_ns >= l.t_ns { return IMUSample(t_ns: t_ns, gyro_B: l.gyro_B, accel_B: l.accel_B) }
        // Binary search for the last sample at or before t.
        var lo = 0, hi = samples.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if samples[mid].t_ns <= t_ns { lo = mid } else { hi = mid }
        }
        let a = samples[lo], b = samples[hi]
        let s = Double(t_ns - a.t_ns) / Double(b.t_ns - a.t_ns)
        return IMUSample(t_ns: t_ns, gyro_B: a.gyro_B + s * (b.gyro_B - a.gyro_B),
                         accel_B: a.accel_B + s * (b.accel_B - a.accel_B))
    }

    /// The piecewise-linear measurement between `t0` and `t1` (t0 < t1) as a list of knots: the
    /// interpolated ends and every stored sample strictly between them.
    func knots(from t0: TimestampNs, to t1: TimestampNs) -> [IMUSample] {
        guard t1 > t0, let start = sample(at: t0), let end = sample(at: t1) else { return [] }
        var out = [start]
        // First index with t > t0.
        var lo = 0, hi = samples.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if samples[mid].t_ns <= t0 { lo = mid + 1 } else { hi = mid }
        }
        var i = lo
        while i < samples.count, samples[i].t_ns < t1 { out.append(samples[i]); i += 1 }
        out.append(end)
        return out
    }

    /// True when the span `[t0, t1]` lies in a gap of the data: the stored samples around it (the last at or
    /// before `t0`, the first at or after `t1`) are more than `limit_ns` apart, or there is none after `t1` and
    /// `t1` is more than `limit_ns` past the last one. Before the first sample there is no gap (nothing to miss).
    func isGap(from t0: TimestampNs, to t1: TimestampNs, longerThan limit_ns: Int64) -> Bool {
        // First index with t > t0; the sample before it is the last at or before t0.
        var lo = 0, hi = samples.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if samples[mid].t_ns <= t0 { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0 else { return false }
        let before = samples[lo - 1].t_ns
        var i = lo
        while i < samples.count, samples[i].t_ns < t1 { i += 1 }
        let after = i < samples.count ? samples[i].t_ns : t1
        if i > lo { return false } // a stored sample inside the span: its neighbours bound the gap instead
        return after - before > limit_ns
    }

    /// The samples with `t0 < t ≤ t1`.
    func samples(after t0: TimestampNs, through t1: TimestampNs) -> ArraySlice<IMUSample> {
        guard let lo = samples.firstIndex(where: { $0.t_ns > t0 }) else { return [] }
        var hi = lo
        while hi < samples.count, samples[hi].t_ns <= t1 { hi += 1 }
        return samples[lo..<hi]
    }
}
