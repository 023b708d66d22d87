import Geometry
import Sensors

/// How far camera 0's image moved over the last `baseline_s` seconds: the median displacement of the tracks seen
/// both in the newest frame and in the oldest frame kept (at most `baseline_s` older), normalised image units.
///
/// A still image is one of the two witnesses of rest (the zero-velocity update, the static initialiser); the IMU,
/// the other, cannot tell rest from a constant velocity. One frame pair cannot either when the scene is far: at
/// 20 Hz a body moving 0.34 m/s past structure 8 m away moves the image by under a pixel per frame (the V1_01
/// render's courtyard, 42 s into the flight, where a zero-velocity update on such a frame pair stopped the filter's
/// velocity and shrank mono's scale to a fifth for ten seconds). Over half a second the same motion is 10 px,
/// while a resting camera's tracks move by the tracker's noise.
struct ImageMotionHistory {
    /// The span the displacement is measured over, nanoseconds.
    let baseline_ns: TimestampNs
    /// Kept frames, oldest first: time and camera 0's normalised coordinates by track id.
    private var frames: [(t_ns: TimestampNs, points: [Int: Vec2])] = []

    /// A history measuring over `baseline_s` seconds (> 0).
    init(baseline_s: Double) {
        baseline_ns = Time.nanoseconds(max(baseline_s, 0))
    }

    /// Adds the newest frame's camera-0 points (normalised coordinates by track id) and forgets frames older than
    /// the baseline. A frame not newer than the last one replaces nothing and is ignored.
    mutating func add(t_ns: TimestampNs, points: [Int: Vec2]) {
        if let last = frames.last, t_ns <= last.t_ns { return }
        frames.append((t_ns, points))
        let oldest = t_ns - baseline_ns
        if let keep = frames.firstIndex(where: { $0.t_ns >= oldest }), keep > 0 { frames.removeFirst(keep) }
    }

    /// The median displacement between the newest frame and the oldest kept one, normalised units; nil with fewer
    /// than `minTracks` tracks in both (or fewer than two frames).
    func displacement(minTracks: Int = 5) -> Double? {
        guard frames.count >= 2, let newest = frames.last, let oldest = frames.first else { return nil }
        var d: [Double] = []
        d.reserveCapacity(min(newest.points.count, oldest.points.count))
        for (id, p) in newest.points {
            if let q = oldest.points[id] { d.append((p - q).norm) }
        }
        guard d.count >= minTracks else { return nil }
        d.sort() // at most a few hundred, and only while the frame pair looks still
        return d[d.count / 2]
    }

    /// The time the displacement spans (newest minus oldest kept frame), seconds; 0 with fewer than two frames.
    var span_s: Double {
        guard let a = frames.first, let b = frames.last else { return 0 }
        return Time.seconds(b.t_ns - a.t_ns)
    }
}
