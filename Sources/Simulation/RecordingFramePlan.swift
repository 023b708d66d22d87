import Foundation
import Geometry
import Sensors

/// Which ground-truth rows of a recording become camera frames in `simulate --from-recording`, and the
/// time stamps of their images.
///
/// Frames are rendered at ground-truth time stamps themselves (no pose interpolation). The usable span is
/// where both the ground truth and the IMU have data; its first ground-truth row is the reference time
/// `reference_ns` (`--start` and `--seconds` count from it). Rows are subsampled to the camera rate: on the
/// grid `reference_ns + k · period` (period = 1 / rate_hz), each grid slot takes the row nearest to it (rows
/// map to their nearest slot), so a gap in the ground truth drops the frames it covers instead of shifting
/// every later frame off the rate. With a camera–IMU time offset d, the image of the row at t is stamped
/// `t − d` (it shows the world at IMU time `stamp + d`), and both t and the stamp must lie in the usable span.
public struct RecordingFramePlan: Equatable, Sendable {
    /// Index into the recording's ground truth of each frame's row.
    public var groundTruthIndices: [Int]
    /// Ground-truth time (ns) each frame shows.
    public var groundTruthTimes: [TimestampNs]
    /// Image time stamps (ns): `groundTruthTimes[k] − timeOffset_ns`.
    public var imageStamps: [TimestampNs]
    /// First ground-truth time of the usable span (ns): the origin of `--start`.
    public var reference_ns: TimestampNs
    /// The span where ground truth and IMU overlap, ns.
    public var usableStart_ns: TimestampNs, usableEnd_ns: TimestampNs
    /// Grid slots inside the selected span with no ground-truth row near them (frames dropped by gaps).
    public var skippedSlots: Int
    /// Camera–IMU time offset, ns.
    public var timeOffset_ns: Int64

    /// Earliest and latest time (ns) the frames need data for: their ground-truth times and their stamps.
    public var dataSpan: ClosedRange<TimestampNs> {
        let lo = min(groundTruthTimes.first ?? 0, imageStamps.first ?? 0)
        let hi = max(groundTruthTimes.last ?? 0, imageStamps.last ?? 0)
        return lo...hi
    }

    /// Plans the frames.
    /// - Parameters:
    ///   - groundTruth: the recording's ground truth (increasing time).
    ///   - imuFirst_ns, imuLast_ns: the IMU's first and last time stamp.
    ///   - rate_hz: camera rate (cam0's `rate_hz`).
    ///   - start_s: skip this many seconds after the reference time (≥ 0).
    ///   - seconds: keep this many seconds from there (> 0); `nil` keeps all.
    ///   - timeOffset_ns: camera–IMU time offset (see the type's description).
    ///   - source: names the ground truth in error messages.
    /// - Throws: `RecordingError` when ground truth and IMU do not overlap or do not cover the requested span.
    public static func make(groundTruth: [GroundTruthState], imuFirst_ns: TimestampNs, imuLast_ns: TimestampNs,
                            rate_hz: Double, start_s: Double = 0, seconds: Double? = nil,
                            timeOffset_ns: Int64 = 0, source: String) throws -> RecordingFramePlan {
        guard rate_hz > 0, rate_hz.isFinite else { throw RecordingError(source, "camera rate must be > 0 (got \(rate_hz))") }
        guard start_s >= 0, start_s.isFinite else { throw RecordingError(source, "--start must be ≥ 0 (got \(start_s))") }
        if let seconds, !(seconds > 0 && seconds.isFinite) { throw RecordingError(source, "--seconds must be > 0 (got \(seconds))") }
        guard let gtFirst = groundTruth.first?.t_ns, let gtLast = groundTruth.last?.t_ns else {
            throw RecordingError(source, "no ground-truth rows")
        }
        let lo = max(gtFirst, imuFirst_ns), hi = min(gtLast, imuLast_ns)
        guard lo <= hi else {
            throw RecordingError(source, "ground truth (\(gtFirst) … \(gtLast) ns) and IMU (\(imuFirst_ns) … \(imuLast_ns) ns) do not overlap")
        }
        let usable = groundTruth.indices.filter { i in
            let t = groundTruth[i].t_ns, stamp = t - timeOffset_ns
            return t >= lo && t <= hi && stamp >= lo && stamp <= hi
        }
        guard let firstUsable = usable.first else {
            throw RecordingError(source, "no ground-truth row lies in the span covered by both ground truth and IMU (\(lo) … \(hi) ns)"
                                 + (timeOffset_ns != 0 ? " with the time offset of \(Double(timeOffset_ns) * 1e-6) ms" : ""))
        }
        let reference = groundTruth[firstUsable].t_ns
        let lastUsable = groundTruth[usable[usable.count - 1]].t_ns
        let period = 1e9 / rate_hz
        let available = Double(lastUsable - reference) * 1e-9
        // Half a period of slack at the end, so `--seconds` equal to the span (to the printed digit) is accepted.
        let slack = 0.5 / rate_hz
        guard start_s <= available + 1e-9 else {
            throw RecordingError(source, String(format: "--start %.3f s is past the end of the span covered by both ground truth and IMU (%.3f s from its first usable row at %lld ns)",
                                                start_s, available, reference))
        }
        if let seconds, start_s + seconds > available + slack {
            throw RecordingError(source, String(format: "ground truth and IMU together cover only %.3f s from the first usable row (%lld ns); --start %.3f + --seconds %.3f = %.3f s is beyond it",
                                                available, reference, start_s, seconds, start_s + seconds))
        }
        // Each usable row goes to its nearest grid slot; per slot the nearest row wins.
        var best: [Int: (index: Int, deviation: Double)] = [:]
        for i in usable {
            let dt = Double(groundTruth[i].t_ns - reference)
            let k = Int((dt / period).rounded())
            let dev = abs(dt - Double(k) * period)
            if let b = best[k], b.deviation <= dev { continue }
            best[k] = (i, dev)
        }
        let kStart = Int((start_s * rate_hz - 1e-6).rounded(.up))
        let kEnd = seconds.map { Int(((start_s + $0) * rate_hz + 1e-6).rounded(.down)) } ?? Int.max
        let slots = best.keys.filter { $0 >= kStart && $0 <= kEnd }.sorted()
        guard !slots.isEmpty else {
            throw RecordingError(source, "the requested span (--start \(start_s) s, --seconds \(seconds.map { "\($0)" } ?? "all")) holds no ground-truth row")
        }
        let lastSlot = min(kEnd, slots[slots.count - 1])
        let indices = slots.map { best[$0]!.index }
        let times = indices.map { groundTruth[$0].t_ns }
        return RecordingFramePlan(groundTruthIndices: indices, groundTruthTimes: times,
                                  imageStamps: times.map { $0 - timeOffset_ns }, reference_ns: reference,
                                  usableStart_ns: lo, usableEnd_ns: hi,
                                  skippedSlots: (lastSlot - slots[0] + 1) - slots.count, timeOffset_ns: timeOffset_ns)
    }
}
