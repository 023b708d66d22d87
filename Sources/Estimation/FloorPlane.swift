import Foundation
import Geometry
import Sensors

/// The floor as a state of the filter: the plane `z = h + s · ((x, y) − o)` in W (gravity-aligned; `s` its small
/// slopes, `o` where the body was when it entered), three numbers that every landmark on the floor observes again,
/// however long ago the floor was first seen. The MSCKF's points live for one window (about half a second) and
/// map reuse finds an old point only when a track happens to land on it; the floor is in view of most frames of a
/// body moving over it, so the body's height over it (and with it, in mono, the scale of the motion) is tied to
/// the same reference for the whole run instead of drifting between re-observations.
///
/// `FloorDetector` finds the plane among the filter's accepted landmarks (the lowest dense horizontal level at
/// least `minBelowBody_m` under the body); the filter then holds `h` and `s` (`FilterState.addFloor`), and each
/// MSCKF feature whose point lies within `maxOffset_m` of it gets one more residual row,
/// `(h + s · ((x, y) − o) − p_z) / pointStd_m`, which the null-space projection folds into its rows
/// (`MSCKFUpdater.linearize`). A feature whose rows then fail the χ² gate is tried again without the row.
public struct FloorOptions: Equatable, Sendable {
    /// Put the floor into the state once it is found.
    public var enabled: Bool = true
    /// How far a point on the floor may lie from the plane (its texture's relief, and the plane's tilt against
    /// gravity across the room), metres: the σ of its extra row.
    public var pointStd_m: Double = 0.01
    /// A landmark within this of the floor's height counts as on it (and then also within 2.5 σ of its own and
    /// the floor's uncertainty), metres.
    public var maxOffset_m: Double = 0.05
    /// Landmarks less than this far below the body are not taken for the floor, metres.
    public var minBelowBody_m: Double = 0.3
    /// Landmarks with a larger triangulation σ are not used to find the floor, metres.
    public var detectionMaxPointStd_m: Double = 0.05
    /// The floor is looked for only after this much normal tracking in a stereo run, ns: the start-up's landmarks
    /// carry its errors.
    public var warmup_ns: TimestampNs = 5_000_000_000
    /// The same in a mono run, ns. Mono's scale comes from the accelerometer, and the floor holds the scale of the
    /// moment it is put into the state (the body's height over it, in the filter's metres): while gravity and the
    /// biases converge (a start from rest, a take-off) that scale is several per cent off, as the loose map points'
    /// (`MapReuseOptions.looseWarmup_ns`, the same 15 s).
    public var warmupMono_ns: TimestampNs = 15_000_000_000
    /// Landmarks that must lie within ± 4 cm of the level to call it the floor.
    public var minPoints: Int = 40
    /// 1-σ of the body's height over the floor when it is put into the state, metres, plus `heightStdPerMetre`
    /// times that height (mono: the scale is not known better than a few per cent early on).
    public var heightStd_m: Double = 0.02
    /// See `heightStd_m`.
    public var heightStdPerMetre: Double = 0.03
    /// Prior 1-σ of each of the floor's slopes (dz/dx, dz/dy) when it enters the state, radians (small angles):
    /// a floor is level only to a fraction of a degree, and one held level would tilt the estimate with it.
    public var slopeStd_rad: Double = 0.01
    /// Random walk of the floor's height in the state, m/√s: how fast the filter may move it. 0: the floor does not
    /// move (0.001–0.01 m/√s did not free mono from a take-off's scale: docs/ACCURACY.md, "The floor in the state").
    public var heightRandomWalk: Double = 0

    /// The default options.
    public init() {}
}

/// Finds the floor's height among the filter's accepted landmarks (W): the lowest 2 cm level holding at least a
/// third of the most populated one's landmarks and `minPoints`, climbed to its local peak and refined by a few
/// median steps over ± 4 cm, and kept when its landmarks are concentrated on it (a plane, not a slice of a cloud).
/// Deterministic for a given input.
struct FloorDetector {
    let options: FloorOptions
    /// `warmup_ns` or `warmupMono_ns`.
    let warmup_ns: TimestampNs
    private var heights: [Double] = []
    private var first_ns: TimestampNs?
    private var frames = 0

    init(options: FloorOptions, stereo: Bool) {
        self.options = options
        warmup_ns = stereo ? options.warmup_ns : options.warmupMono_ns
    }

    /// Adds a frame's accepted landmarks; returns the floor's height (W, metres) when found at this frame.
    mutating func add(_ landmarks: [Landmark], bodyZ: Double, t_ns: TimestampNs) -> Double? {
        if first_ns == nil { first_ns = t_ns }
        for l in landmarks where l.std_m <= options.detectionMaxPointStd_m && bodyZ - l.p_W.z >= options.minBelowBody_m {
            heights.append(l.p_W.z)
        }
        if heights.count > 20_000 { heights.removeFirst(heights.count - 20_000) }
        frames += 1
        guard frames % 10 == 0, t_ns - first_ns! >= warmup_ns, heights.count >= options.minPoints else { return nil }
        return Self.level(heights, minPoints: options.minPoints)
    }

    /// The lowest dense level of `z` (see the type), or nil.
    static func level(_ z: [Double], minPoints: Int) -> Double? {
        guard let lo = z.min() else { return nil }
        let bin = 0.02
        var counts: [Int: Int] = [:]
        for v in z { counts[Int(((v - lo) / bin).rounded(.down)), default: 0] += 1 }
        guard let peak = counts.values.max() else { return nil }
        let need = max(minPoints / 2, peak / 3)
        guard var b = counts.filter({ $0.value >= need }).keys.min() else { return nil }
        while (counts[b + 1] ?? 0) > (counts[b] ?? 0) { b += 1 }
        var c = lo + (Double(b) + 0.5) * bin
        var count = 0
        for _ in 0..<5 {
            let near = z.filter { abs($0 - c) < 0.04 }.sorted()
            guard !near.isEmpty else { return nil }
            count = near.count
            c = near[near.count / 2]
        }
        // A plane, not the lowest slice of a cloud: twice as many landmarks within ± 2 cm of it as in the bands
        // 4–12 cm above and below (four times the width): evenly spread heights give a quarter.
        let inside = z.filter { abs($0 - c) < 0.02 }.count
        let beside = z.filter { abs($0 - c) >= 0.04 && abs($0 - c) < 0.12 }.count
        return count >= minPoints && inside >= 2 * beside ? c : nil
    }
}
