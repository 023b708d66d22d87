import Estimation
import Foundation
import Geometry
import Imaging
import Sensors
import Vision

/// Settings of `MapReobserver`.
public struct MapReuseOptions: Equatable, Sendable {
    /// Re-observe map points at all.
    public var enabled = true
    /// Map points with a triangulation σ above this are not kept in a stereo run, metres.
    public var maxPointStd_m = 0.03
    /// The same bound in a mono run, metres. Mono triangulates from the motion alone, so its points are looser for
    /// the same scene: on EuRoC V1_01 rendered from its recording, 5 % of the mono landmarks have σ ≤ 3 cm against
    /// 21 % in stereo (22 % of mono's at ≤ 6 cm), and at 3 cm the map starves where the flight hovers and the
    /// pose drifts. 0.06 (with `looseWarmup_ns`) takes full-flight V1_01 mono from 31.2 to 25.2 mm and 35.1 to
    /// 24.5 mm on two renders, the courtyard from 26.9 to 25.7 mm, and leaves the simulated rooms unchanged
    /// (docs/ACCURACY.md, error budget item 3).
    public var maxPointStdMono_m = 0.06
    /// Points looser than `maxPointStd_m` (mono) are mapped only once tracking has been normal this long, ns: while
    /// gravity and the biases converge (a start from rest, a take-off) the landmarks' errors outgrow their σ, and
    /// a loose point from then anchors the pose to the start-up's tilt (V1_01's first 30 s: 15 → 29 mm without it).
    public var looseWarmup_ns: TimestampNs = 15_000_000_000
    /// The σ given to a map point is at least this, metres (the pose drift it was triangulated with).
    public var pointStdFloor_m = 0.01
    /// A map point is matched again only when it was last seen this long ago, ns, in a stereo run (a shorter gap
    /// is close to the information the sliding window already has).
    public var minGap_ns: TimestampNs = 2_000_000_000
    /// The same gap in a mono run, ns. Mono's scale comes from the accelerometer integrated over the window's
    /// 0.5 s (11 clones at 20 Hz), so the real IMU's slow error (0.02–0.03 m/s² at 0.1–5 Hz) makes the local scale
    /// wander by 1–2 % (docs/ACCURACY.md, "The split"); a map point seen again ties the pose to a triangulation
    /// older than the window, a longer baseline for the scale, and the sooner after the window it comes, the more
    /// often. About twice the window: on nine real-IMU V1_01 renders mono ATE went 20.7 → 17.7 mm on average with
    /// 1 s (2.0 / 1.5 / 1.2 / 1.0 / 0.8 / 0.6 s: a minimum at 1.0–1.2 s, worse again at 0.6 s, where the point's
    /// error is still correlated with the window's poses), the tap medians 2.78 → 2.61 %; stereo, whose scale is
    /// the camera baseline's, gained nothing (6.0 → 6.3 mm on five renders) and keeps 2 s (docs/ACCURACY.md,
    /// error budget item 3).
    public var minGapMono_ns: TimestampNs = 1_000_000_000
    /// A matched point is applied again at most this often while its new track lives, ns.
    public var reapplyEvery_ns: TimestampNs = 500_000_000
    /// A track is matched to a map point projecting within this distance of it, pixels.
    public var searchRadius_px = 12.0
    /// Largest Hamming distance of a match (of 256 bits).
    public var maxHamming = 50
    /// The best match must beat the second best by this factor (Lowe's ratio, on Hamming distances).
    public var ratio = 0.8
    /// Points are mapped only once tracking has been normal this long, ns: the first seconds' points carry
    /// the start-up transient's errors, and a map anchors the pose to them for good.
    public var warmup_ns: TimestampNs = 3_000_000_000
    /// Map points kept at most; the least recently seen go first.
    public var capacity = 6000
    /// Defaults.
    public init() {}

    /// The σ bound for map points of a stereo or a mono run, metres.
    public func pointStdBound_m(stereo: Bool) -> Double { stereo ? maxPointStd_m : maxPointStdMono_m }

    /// The re-observation gap of a stereo or a mono run, ns.
    public func reobservationGap_ns(stereo: Bool) -> TimestampNs { stereo ? minGap_ns : minGapMono_ns }
}

/// Map reuse for the estimator: keeps the points the estimator triangulated, each with the ORB descriptor
/// of its track, and finds them again in later frames: a live track whose descriptor matches a map point
/// projecting near it (with the current pose) becomes a `MapPointObservation` for the estimator.
///
/// Tracks are described once, in the frame they start. Map points are in the estimator's world frame W.
final class MapReobserver {
    struct MapPoint {
        var id: Int
        var p_W: Vec3
        var std_m: Double
        var descriptor: ORBDescriptor
        /// Last time a track saw it (its own, or one matched to it), ns.
        var lastSeen_ns: TimestampNs
    }

    let options: MapReuseOptions
    /// Map points with a larger σ are not kept, metres (`MapReuseOptions.pointStdBound_m(stereo:)`).
    let maxPointStd_m: Double
    /// A map point is matched again only when it was last seen this long ago, ns
    /// (`MapReuseOptions.reobservationGap_ns(stereo:)`).
    let minGap_ns: TimestampNs
    private let camera: CameraCalibration
    private var descriptors: [Int: (ORBDescriptor, TimestampNs)] = [:]   // track id → descriptor, last seen
    private var points: [Int: MapPoint] = [:]
    private var firstNormal_ns: TimestampNs?
    /// Live track id → the map point it was matched to, and when the match was last applied.
    private var matched: [Int: (mapId: Int, applied_ns: TimestampNs)] = [:]

    init(camera: CameraCalibration, options: MapReuseOptions, stereo: Bool) {
        self.camera = camera
        self.options = options
        self.maxPointStd_m = options.pointStdBound_m(stereo: stereo)
        self.minGap_ns = options.reobservationGap_ns(stereo: stereo)
    }

    var pointCount: Int { points.count }

    /// The map's scale its points are at (`VIOEstimator.mapScale`); 1 until the estimator changes it.
    private(set) var scale: Double = 1

    /// Scales the map's points (and their σ) about W's origin to the estimator's map scale `s`.
    func follow(scale s: Double) {
        guard s != scale, s > 0, s.isFinite else { return }
        let factor = s / scale
        for i in points.values.indices {
            points.values[i].p_W *= factor
            points.values[i].std_m *= factor
        }
        scale = s
    }

    /// Describes the tracks that start in this frame.
    func describeNewTracks(_ features: [TrackedFeature], image: GrayImage, t_ns: TimestampNs) throws {
        let fresh = features.filter { $0.age == 1 }
        if !fresh.isEmpty {
            let d = try ORBDescriptor.compute(image, at: fresh.map { SIMD2<Float>(Float($0.pixel.x), Float($0.pixel.y)) })
            for (f, desc) in zip(fresh, d) { if let desc { descriptors[f.id] = (desc, t_ns) } }
        }
        for f in features { if let d = descriptors[f.id] { descriptors[f.id] = (d.0, t_ns) } }
        // Tracks gone for 3 s will not be reported as landmarks any more.
        if descriptors.count > 4000 { descriptors = descriptors.filter { $0.value.1 >= t_ns - 3_000_000_000 } }
    }

    /// Adds the landmarks the estimator accepted in this frame (W, metres).
    func add(_ landmarks: [Landmark], t_ns: TimestampNs) {
        if firstNormal_ns == nil { firstNormal_ns = t_ns }
        let sinceNormal = t_ns - (firstNormal_ns ?? t_ns)
        guard sinceNormal >= options.warmup_ns else { return }
        let matchedMaps = Set(matched.values.map(\.mapId))
        for l in landmarks {
            if let m = matched[l.id] { points[m.mapId]?.lastSeen_ns = t_ns; continue }
            if var p = points[l.id] { p.lastSeen_ns = t_ns; points[l.id] = p; continue }
            guard l.std_m <= maxPointStd_m, l.std_m <= options.maxPointStd_m || sinceNormal >= options.looseWarmup_ns, let d = descriptors[l.id]?.0, !matchedMaps.contains(l.id) else { continue }
            points[l.id] = MapPoint(id: l.id, p_W: l.p_W, std_m: max(l.std_m, options.pointStdFloor_m), descriptor: d, lastSeen_ns: t_ns)
        }
        if points.count > options.capacity {
            // In place (no rebuilt copy of the map): the least recently seen points beyond 90 % of the capacity go.
            var order = points.values.map { (lastSeen_ns: $0.lastSeen_ns, id: $0.id) }
            order.sort { ($0.lastSeen_ns, $0.id) > ($1.lastSeen_ns, $1.id) }
            for entry in order[(options.capacity * 9 / 10)...] { points.removeValue(forKey: entry.id) }
        }
    }

    /// The map points the live `features` re-observe, seen from `T_W_C` (camera 0 in W).
    func observations(_ features: [TrackedFeature], T_W_C: SE3, t_ns: TimestampNs) -> [MapPointObservation] {
        let live = Set(features.map(\.id))
        matched = matched.filter { live.contains($0.key) }
        // Candidate map points: not seen for `minGap_ns`, in front of the camera and inside the image.
        let T_C_W = T_W_C.inverse
        let cell = max(options.searchRadius_px, 4)
        // Cells are numbered by truncation (`Int32(pixel / cell)`), the candidates of each in the order found.
        var candidateIds: [Int] = [], candidatePixels: [Vec2] = [], candidateCells: [SIMD2<Int>] = []
        let taken = Set(matched.values.map(\.mapId))
        for p in points.values where p.lastSeen_ns <= t_ns - minGap_ns && !taken.contains(p.id) {
            let p_C = T_C_W.act(p.p_W)
            guard p_C.z > 0.1, let px = camera.model.project(p_C), camera.model.contains(px, margin: 0) else { continue }
            candidateIds.append(p.id); candidatePixels.append(px)
            candidateCells.append(SIMD2(Int(Int32(px.x / cell)), Int(Int32(px.y / cell))))
        }
        let grid = CellIndex(candidateCells)
        var claimed = Set<Int>()
        var out: [MapPointObservation] = []
        for f in features {
            if let m = matched[f.id] {
                guard t_ns - m.applied_ns >= options.reapplyEvery_ns, let p = points[m.mapId] else { continue }
                matched[f.id]?.applied_ns = t_ns
                out.append(MapPointObservation(mapId: p.id, p_W: p.p_W, std_m: p.std_m, normalized: f.normalized))
                continue
            }
            guard !candidateIds.isEmpty, points[f.id] == nil, let d = descriptors[f.id]?.0 else { continue }
            let cx = Int(Int32(f.pixel.x / cell)), cy = Int(Int32(f.pixel.y / cell))
            var best = (id: -1, dist: Int.max), second = Int.max
            for gx in (cx - 1)...(cx + 1) {
                for gy in (cy - 1)...(cy + 1) {
                    for slot in grid.span(in: SIMD2(gx, gy)) {
                        let k = grid.item(at: slot)
                        guard (candidatePixels[k] - f.pixel).norm <= options.searchRadius_px else { continue }
                        let id = candidateIds[k]
                        guard let p = points[id] else { continue }
                        let h = d.hammingDistance(to: p.descriptor)
                        if h < best.dist { second = best.dist; best = (id, h) } else if h < second { second = h }
                    }
                }
            }
            guard best.id >= 0, best.dist <= options.maxHamming, !claimed.contains(best.id),
                  second == Int.max || Double(best.dist) < options.ratio * Double(second), let p = points[best.id] else { continue }
            claimed.insert(best.id)
            matched[f.id] = (p.id, t_ns)
            out.append(MapPointObservation(mapId: p.id, p_W: p.p_W, std_m: p.std_m, normalized: f.normalized))
        }
        return out
    }

    /// The map points kept (W), by id.
    var mapPoints: [MapPoint] { points.values.sorted { $0.id < $1.id } }
    /// The map points kept (W), in no particular order: for a caller whose result does not depend on it, without
    /// `mapPoints`' sort (a per-frame cost).
    var unorderedMapPoints: Dictionary<Int, MapPoint>.Values { points.values }

    /// The descriptor of a live track (computed where it started), if it has one.
    func descriptor(ofTrack id: Int) -> ORBDescriptor? { descriptors[id]?.0 }

    /// The map point a live track observes: its own, or the one it was matched to.
    func mapPointId(ofTrack id: Int) -> Int? { points[id] != nil ? id : matched[id]?.mapId }

    /// Drops the points whose ids satisfy `predicate` (a loaded map's, when its place was revoked), and the matches of
    /// live tracks to them.
    func remove(where predicate: (Int) -> Bool) {
        points = points.filter { !predicate($0.key) }
        matched = matched.filter { !predicate($0.value.mapId) }
    }

    /// Adds points from a saved map, already expressed in W, with ids that no feature track uses; they can be
    /// matched from the next frame on (their last sighting is set `minGap_ns` before `t_ns`).
    func insert(_ loaded: [MapPoint], t_ns: TimestampNs) {
        for var p in loaded {
            p.lastSeen_ns = t_ns - minGap_ns
            p.std_m = max(p.std_m, options.pointStdFloor_m)
            points[p.id] = p
        }
    }

    /// Marks the map points the estimator accepted as seen now; drops the matches it rejected.
    func applied(_ result: MapUpdateResult, offered: [MapPointObservation], t_ns: TimestampNs) {
        let accepted = Set(result.acceptedIds)
        for o in offered {
            if accepted.contains(o.mapId) { points[o.mapId]?.lastSeen_ns = t_ns } else {
                matched = matched.filter { $0.value.mapId != o.mapId }
            }
        }
    }
}
