import Foundation
import Geometry
import Sensors

/// One measurement tap planned from a scene's exact geometry: two pixels of one frame whose rays first meet the
/// scene at `a_W` and `b_W` (world frame of the scene, metres), and the true distance between them.
public struct PlannedTap: Equatable, Sendable, Codable {
    /// What is measured, e.g. `"tableA.top.length"` or `"floor.1"`; unique within a plan.
    public var label: String
    /// The family (see `MeasurementTapPlanner`): `corner`, `edge`, `height`, `floor`, `wall` or `wallFloor`.
    public var kind: String
    /// Time of the frame the tap is made on (the image's stamp), nanoseconds.
    public var t_ns: Int64
    /// The two tapped pixels (cam0, distorted image coordinates).
    public var pixels: [Vec2]
    /// True end points, world frame of the scene, metres.
    public var a_W: Vec3, b_W: Vec3
    /// `|b_W − a_W|`, metres.
    public var length: Double
    /// Distance from the camera to the farther end, metres.
    public var range: Double
    /// The true camera centre at the tap's frame, world frame of the scene, metres.
    public var camera_W: Vec3
}

/// Tuning of `MeasurementTapPlanner`. Distances in metres, times in seconds, pixels in pixels.
public struct TapPlanOptions: Equatable, Sendable {
    /// Taps are made on frames at least this long after the first frame: the map needs a few seconds of motion
    /// before anything can be measured (and a user does not measure before the app says it is ready).
    public var warmup_s: Double = 8
    /// Both tapped pixels lie at least this far inside the image (a finger does not tap the bezel).
    public var imageMargin_px: Double = 20
    /// An end point counts as visible when the scene's first hit along its ray is within this of it (the renderer's
    /// own geometry: anything nearer occludes it).
    public var occlusionTolerance_m: Double = 0.01
    /// How far inside a top surface's edges the `edge` and `height` taps lie (a careful user taps just inside a
    /// corner, not on it; 5 cm is about 10 px at 2 m).
    public var inset_m: Double = 0.05
    /// Pixel-sampled taps (`floor`, `wall`, `wallFloor`) keep their hits at least this far inside their surface's
    /// polygon, so the truth is not itself an edge case.
    public var sampledEdgeClearance_m: Double = 0.1
    /// Pixel-sampled taps are made on this many frames spread evenly over the sequence after the warm-up.
    public var sampledFrames: Int = 5
    /// Pixel-sampled taps are at least this long (shorter ones say little about scale).
    public var sampledMinLength_m: Double = 0.5
    /// Far ends beyond this are not tapped (nobody measures a façade 20 m away by tapping it).
    public var maxRange_m: Double = 8
    /// Default options.
    public init() {}
}

/// Plans measurement taps of known length for a sequence rendered from a scene (e.g. `simulate --from-recording`):
/// deterministic, for any scene made of `SceneSurface`s and any trajectory.
///
/// Families:
/// - `corner`: the scene's own measurement pairs but the diagonals (box and table top edges, box heights along a
///   vertical edge, table heights, distances between tops), tapped exactly on the corners as people do;
/// - `edge`: each top's longer edge, 5 cm inside the top on both sides and the ends (the surface under the finger is
///   unambiguous);
/// - `height`: each top to the surface it stands on: a point 5 cm inside an edge's midpoint on the top, and the
///   point 5 cm outside the same edge on the support below (found by casting a ray down);
/// - `floor`, `wall`, `wallFloor`: pairs of pixels of a 7 × 5 grid whose rays hit the floor, one wall, or a wall
///   and the floor, at least `sampledEdgeClearance_m` inside the polygons; on `sampledFrames` evenly spread frames,
///   the farthest-apart floor pair and, alternately, the farthest-apart wall or wall-to-floor pair.
///
/// World-point pairs (`corner`, `edge`, `height`) are tapped on the frame, after the warm-up, where both ends are in
/// the image and unoccluded and the farther end is nearest (the clearest view).
public struct MeasurementTapPlanner {
    /// The scene the sequence was rendered from.
    public let scene: Scene
    /// The camera (cam0) the taps are made in.
    public let camera: CameraCalibration
    /// `(image stamp, T_W_C)` of every frame, in time order; scene world frame.
    public let frames: [(t_ns: Int64, T_W_C: SE3)]
    /// Tuning.
    public let options: TapPlanOptions

    /// A planner over frames with known camera poses (`T_W_C` from the ground truth: `T_W_B · T_B_C`).
    public init(scene: Scene, camera: CameraCalibration, frames: [(t_ns: Int64, T_W_C: SE3)],
                options: TapPlanOptions = TapPlanOptions()) {
        self.scene = scene; self.camera = camera
        self.frames = frames.sorted { $0.t_ns < $1.t_ns }; self.options = options
    }

    /// A planner for an ASL dataset written by the simulator: frames of cam0 with the ground-truth body pose at
    /// each image's time (`image stamp + timeOffset_ns`, nearest row within 1 ms; frames without one are skipped).
    public init(scene: Scene, camera: CameraCalibration, frameTimes: [Int64], groundTruth: [GroundTruthState],
                timeOffset_ns: Int64 = 0, options: TapPlanOptions = TapPlanOptions()) {
        let rows = groundTruth.sorted { $0.t_ns < $1.t_ns }
        let times = rows.map(\.t_ns)
        var out: [(t_ns: Int64, T_W_C: SE3)] = []
        for t in frameTimes {
            let want = t + timeOffset_ns
            var lo = 0, hi = times.count
            while lo < hi { let mid = (lo + hi) / 2; if times[mid] < want { lo = mid + 1 } else { hi = mid } }
            let best = [lo - 1, lo].filter { $0 >= 0 && $0 < times.count }.min { abs(times[$0] - want) < abs(times[$1] - want) }
            guard let i = best, abs(times[i] - want) <= 1_000_000 else { continue }
            out.append((t, rows[i].T_W_B * camera.T_B_C))
        }
        self.init(scene: scene, camera: camera, frames: out, options: options)
    }

    /// The taps, in a fixed order (families as listed above; labels unique).
    public func plan() -> [PlannedTap] {
        guard let t0 = frames.first?.t_ns else { return [] }
        let usable = frames.filter { Double($0.t_ns - t0) * 1e-9 >= options.warmup_s }
        var taps: [PlannedTap] = []
        func add(_ name: String, _ kind: String, _ a: Vec3, _ b: Vec3) {
            guard let tap = clearestView(of: a, b, in: usable) else { return }
            taps.append(PlannedTap(label: name, kind: kind, t_ns: tap.t_ns, pixels: tap.pixels, a_W: a, b_W: b,
                                   length: (b - a).norm, range: tap.range, camera_W: tap.camera))
        }
        // Diagonals are skipped: their corners are the edges' corners again.
        for pair in scene.measurements where !pair.name.hasSuffix(".diagonal") { add(pair.name, "corner", pair.a_W, pair.b_W) }
        for top in scene.surfaces where (top.kind == .tableTop || top.kind == .boxTop) && top.corners_W.count == 4 {
            let name = top.name.hasSuffix(".top") ? String(top.name.dropLast(4)) : top.name
            let c = top.corners_W
            // The longer edge, inset on both sides and at both ends.
            let e01 = (c[1] - c[0]).norm, e12 = (c[2] - c[1]).norm
            let (p, q, r) = e01 >= e12 ? (c[0], c[1], c[2]) : (c[1], c[2], c[3])
            let along = (q - p).normalized, inward = (r - q).normalized
            let i = options.inset_m
            add("\(name).top.length.inset", "edge", p + i * along + i * inward, q - i * along + i * inward)
            // Height: the edge (of four) whose inset pair has the clearest view.
            var best: (range: Double, a: Vec3, b: Vec3)?
            for k in 0..<4 {
                let e0 = c[k], e1 = c[(k + 1) % 4], e2 = c[(k + 2) % 4]
                let mid = (e0 + e1) / 2, inn = (e2 - e1).normalized
                let onTop = mid + i * inn
                let outside = mid - i * inn
                guard let support = scene.raycast(origin_W: outside - 1e-4 * top.normal_W, direction_W: -top.normal_W),
                      abs(support.normal_W.z) > 0.999 else { continue }
                if let v = clearestView(of: onTop, support.point_W, in: usable), v.range < (best?.range ?? .infinity) {
                    best = (v.range, onTop, support.point_W)
                }
            }
            if let best { add("\(name).height.inset", "height", best.a, best.b) }
        }
        taps += sampledTaps(usable)
        return taps
    }

    /// The frame where both points are visible (in the image with the margin, unoccluded, within `maxRange_m`) and
    /// the farther is nearest; `nil` when there is none.
    func clearestView(of a: Vec3, _ b: Vec3, in usable: [(t_ns: Int64, T_W_C: SE3)])
        -> (t_ns: Int64, pixels: [Vec2], range: Double, camera: Vec3)? {
        var best: (t_ns: Int64, pixels: [Vec2], range: Double, camera: Vec3)?
        for f in usable {
            let range = max((a - f.T_W_C.translation).norm, (b - f.T_W_C.translation).norm)
            guard range <= options.maxRange_m, range < (best?.range ?? .infinity) else { continue }
            guard let pa = pixel(of: a, from: f.T_W_C), let pb = pixel(of: b, from: f.T_W_C) else { continue }
            best = (f.t_ns, [pa, pb], range, f.T_W_C.translation)
        }
        return best
    }

    /// The pixel where `p` is seen from `T_W_C`, when it is in the image (with the margin) and nothing occludes it.
    func pixel(of p: Vec3, from T_W_C: SE3) -> Vec2? {
        let m = camera.model
        guard let px = m.project(T_W_C.inverse.act(p)), m.contains(px, margin: options.imageMargin_px) else { return nil }
        let d = p - T_W_C.translation
        // The ray through the pixel (as the consumer will cast it) must meet the scene first at p.
        guard let b = m.bearing(px), let hit = scene.raycast(origin_W: T_W_C.translation, direction_W: T_W_C.rotation.act(b)),
              (hit.point_W - p).norm <= options.occlusionTolerance_m || abs(hit.distance - d.norm) <= options.occlusionTolerance_m
        else { return nil }
        return px
    }

    /// `floor`, `wall` and `wallFloor` taps from a pixel grid on evenly spread frames.
    func sampledTaps(_ usable: [(t_ns: Int64, T_W_C: SE3)]) -> [PlannedTap] {
        guard !usable.isEmpty, options.sampledFrames > 0 else { return [] }
        let m = camera.model
        let n = options.sampledFrames
        var out: [PlannedTap] = []
        var counter: [String: Int] = [:]
        for k in 0..<n {
            // Frames at the centres of n equal slices of the usable span.
            let f = usable[min(usable.count - 1, Int((Double(k) + 0.5) / Double(n) * Double(usable.count)))]
            var hits: [(px: Vec2, hit: SceneHit)] = []
            for gy in 0..<5 {
                for gx in 0..<7 {
                    let margin = 2 * options.imageMargin_px
                    let px = Vec2(margin + (Double(m.width - 1) - 2 * margin) * Double(gx) / 6,
                                  margin + (Double(m.height - 1) - 2 * margin) * Double(gy) / 4)
                    guard let b = m.bearing(px),
                          let hit = scene.raycast(origin_W: f.T_W_C.translation, direction_W: f.T_W_C.rotation.act(b)),
                          hit.distance <= options.maxRange_m,
                          clearance(of: hit.point_W, inside: scene.surfaces[hit.surfaceId]) >= options.sampledEdgeClearance_m
                    else { continue }
                    hits.append((px, hit))
                }
            }
            func kind(_ h: SceneHit) -> SurfaceKind { scene.surfaces[h.surfaceId].kind }
            // A floor pair on every frame; a pair on one wall and a wall-to-floor pair on alternate frames.
            let families: [(String, (SceneHit, SceneHit) -> Bool)] = [
                ("floor", { kind($0) == .floor && kind($1) == .floor }),
                k % 2 == 0 ? ("wall", { kind($0) == .wall && $0.surfaceId == $1.surfaceId })
                    : ("wallFloor", { kind($0) == .wall && kind($1) == .floor }),
            ]
            for (family, accepts) in families {
                var best: (i: Int, j: Int, d: Double)?
                for i in hits.indices {
                    for j in hits.indices where i != j && accepts(hits[i].hit, hits[j].hit) {
                        let d = (hits[i].hit.point_W - hits[j].hit.point_W).norm
                        if d >= options.sampledMinLength_m && d > (best?.d ?? 0) + 1e-9 { best = (i, j, d) }
                    }
                }
                guard let best else { continue }
                counter[family, default: 0] += 1
                let a = hits[best.i], b = hits[best.j]
                out.append(PlannedTap(label: "\(family).\(counter[family]!)", kind: family, t_ns: f.t_ns, pixels: [a.px, b.px],
                                      a_W: a.hit.point_W, b_W: b.hit.point_W, length: best.d,
                                      range: max(a.hit.distance, b.hit.distance), camera_W: f.T_W_C.translation))
            }
        }
        return out
    }

    /// Distance from a point on a convex surface to the nearest edge of its polygon, metres (negative outside).
    func clearance(of p: Vec3, inside s: SceneSurface) -> Double {
        let c = s.corners_W
        var best = Double.infinity
        for i in c.indices {
            let a = c[i], b = c[(i + 1) % c.count]
            let edge = (b - a).normalized
            let inward = s.normal_W.cross(edge) // counter-clockwise seen from the normal: inside is to the left
            best = min(best, inward.dot(p - a))
        }
        return best
    }

    /// The taps as a `measure:taps=FILE` file: a JSON array of `{"t_ns", "pixels", "label"}`.
    public static func tapsJSON(_ taps: [PlannedTap]) throws -> Data {
        let list: [[String: Any]] = taps.map { ["t_ns": $0.t_ns, "pixels": $0.pixels.map { [$0.x, $0.y] }, "label": $0.label] }
        return try JSONSerialization.data(withJSONObject: list, options: [.prettyPrinted, .sortedKeys])
    }
}
