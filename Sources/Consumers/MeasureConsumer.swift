import Foundation
import Geometry
import Imaging
import Sensors
import StreamFormat
import World

/// One tap: a polyline of pixels to measure at a time.
public struct MeasureTap: Equatable {
    /// When to measure.
    public var time: StreamTime
    /// Polyline vertices, pixels.
    public var pixels: [Vec2]
    /// Optional label, echoed in the record.
    public var label: String?

    /// A tap.
    public init(time: StreamTime, pixels: [Vec2], label: String? = nil) {
        self.time = time; self.pixels = pixels; self.label = label
    }

    /// Reads a taps file: a JSON array of `{"t_ns": Int | "t_s": Double, "pixels": [[u, v], …], "label": String?}`.
    /// `t_ns` is absolute (the dataset clock); `t_s` is seconds after the first frame.
    public static func load(path: String) throws -> [MeasureTap] {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ConsumerError.badFile(path: path, reason: "cannot read (\(error.localizedDescription))")
        }
        let json: Any
        do { json = try JSONSerialization.jsonObject(with: data) } catch {
            throw ConsumerError.badFile(path: path, reason: "not valid JSON (\(error.localizedDescription))")
        }
        guard let list = json as? [Any] else { throw ConsumerError.badFile(path: path, reason: "expected a JSON array of taps") }
        return try list.enumerated().map { i, item in
            func bad(_ why: String) -> ConsumerError { .badFile(path: path, reason: "tap \(i): \(why)") }
            guard let obj = item as? [String: Any] else { throw bad("expected an object") }
            for k in obj.keys where !["t_ns", "t_s", "pixels", "label"].contains(k) { throw bad("unknown key '\(k)'") }
            let time: StreamTime
            if let ns = obj["t_ns"] {
                guard obj["t_s"] == nil else { throw bad("give t_ns or t_s, not both") }
                guard let n = ns as? NSNumber, let v = Int64(exactly: n.doubleValue) ?? Int64(n.stringValue), v >= 0 else {
                    throw bad("t_ns must be a non-negative integer")
                }
                time = .absolute(v)
            } else if let s = obj["t_s"] {
                guard let n = s as? NSNumber, n.doubleValue.isFinite, n.doubleValue >= 0 else {
                    throw bad("t_s must be a non-negative number")
                }
                time = .relativeSeconds(n.doubleValue)
            } else {
                throw bad("missing t_ns or t_s")
            }
            guard let px = obj["pixels"] as? [Any], px.count >= 2 else { throw bad("pixels must list at least 2 [u, v] points") }
            let pixels: [Vec2] = try px.enumerated().map { j, p in
                guard let uv = p as? [NSNumber], uv.count == 2, uv[0].doubleValue.isFinite, uv[1].doubleValue.isFinite else {
                    throw bad("pixel \(j) must be [u, v]")
                }
                return Vec2(uv[0].doubleValue, uv[1].doubleValue)
            }
            var label: String?
            if let l = obj["label"] {
                guard let s = l as? String else { throw bad("label must be a string") }
                label = s
            }
            return MeasureTap(time: time, pixels: pixels, label: label)
        }
    }
}

/// `measure:taps=FILE[,pose_std=M][,pixel_std=PX][,edge=M][,images=on|off][,max_rel_std=F]`: at the frame nearest each tap time, raycasts each
/// tapped pixel (plane geometry first, then estimated plane, then infinite plane) and emits a `measurement` record.
///
/// People measure between corners and edges. A horizontal plane's boundary is the hull of its landmarks, which
/// thin out towards a rim (a rim point has the side face below it and is tracked less often), so a tap on a
/// table's corner can miss the hull by several centimetres and fall through to the floor behind, turning a 1 m
/// length into 2 m. Taps therefore accept a horizontal plane's geometry up to `edge` metres (default 0.15)
/// outside its boundary; the nearest such hit wins, as the nearer surface occludes the farther one.
///
/// Uncertainty model (per segment a→b of length L, rays d from the camera, surface hit at distance t with
/// incidence cosine c = |n·d|, surface σ_s from the plane or local fit, pose σ_p, pixel σ_px, focal length f):
/// - points on the same detected plane: the camera-to-surface distance H = t·c is uncertain by σ_H = √(σ_s² + σ_p²)
///   and scales the whole polyline about the camera, so σ_common = L·σ_H/H (added linearly over segments on the
///   same plane);
/// - points on different surfaces (two planes, or a plane and an estimate, or two estimates, each fitted on its own):
///   each end moves along its ray by √(σ_s² + σ_p²)/c, projected on the segment;
/// - every end adds tap noise t·σ_px/(f·c), independent.
/// σ_total² = (Σ common)² + Σ independent².
///
/// Each hit is checked (`TapPointChecker.check`); a pixel that hits nothing, or whose hit fails, may still be placed
/// by the images: matched in two other views whose epipolar lines cross (`TapPointChecker.imagePlacement`; stereo: the
/// right image and an earlier frame). Such an end counts as a surface of its own met head-on, with the placement's σ.
/// `images=off` turns both uses of the images off.
public final class MeasureConsumer: FrameConsumer {
    /// Spec name: `measure`.
    public let name = "measure"
    /// Frame conventions of the records' points.
    public var convention: StreamConvention = .worldtrack
    /// Camera pose uncertainty used in the model, metres.
    public var poseStd_m: Double
    /// Tap (pixel) uncertainty, pixels.
    public var pixelStd: Double
    /// How far outside a horizontal plane's boundary a tap still lands on it, metres.
    public var edgeTolerance_m: Double
    /// A length whose 1-σ exceeds this fraction of it fails as too uncertain: at 25 % its 2-σ interval spans half
    /// of it to one and a half times it, which answers no question a length is asked (the σ already says so; the
    /// refusal keeps such a figure from being used). The record keeps its `total` and `total_std`. Spec key
    /// `max_rel_std`: a user who needs every reported length good to 10 % can ask for 0.05 (2 σ within 10 %); on the
    /// real-IMU V1_01 renders 0.1 leaves 78 % of the mono lengths and takes those more than 10 % off from 8 to 2
    /// (docs/ACCURACY.md, "Nineteenth round").
    public var maxRelativeStd: Double = 0.25
    /// In stereo, a hit the right image does not refute is checked again with the earlier frame a mono tap would use
    /// as its second view (`firstEarlierView`), and fails when that view refutes it (the reason ends "(the earlier
    /// view)"): a second look along another epipolar line, where the right image can be too close or too ambiguous to
    /// say. On a whole V1_01 flight (arrangement 109) box C's top, never detected, had its corner 3.62 m away met on a
    /// wall's extension at 4.37 m: in the right image the corner's best match lay 1.4 px from the hit's projection
    /// (inside its 1.5 px window), in the earlier frame it scored 0.97 at 3.59 m against 0.64 at the hit (its height
    /// measured 0.77 m for 0.35 m before). Over the fifteen whole real-IMU flights in stereo it refuses that tap and no
    /// tap that measured; it also refutes an estimated plane 10 % deep whose pixel the images then place within a
    /// centimetre, so a tap refused as too uncertain is measured (−1.8 %; docs/ACCURACY.md, "Forty-first round").
    /// `false`: the right image alone.
    public var earlierViewInStereo = true
    /// Taps farther than this from every frame fail, ns.
    public var maxTimeGap_ns: TimestampNs = 500_000_000
    /// The checks each tapped point must pass (and the surface σ they find).
    public var checker = TapPointChecker()
    private let taps: [MeasureTap]
    private var pending: [(t: TimestampNs, tap: MeasureTap)]?
    private var previous: WorldFrame?
    /// Recent frames' images and camera poses, kept while a tap is due within `secondViewWindow_ns` (the earlier
    /// views a tapped pixel is matched in, see `secondView(for:from:)` and `imageViews(for:from:)`), oldest first.
    private var recentViews: [KeptView] = []
    /// How far back a mono tap looks for a second view, ns.
    public var secondViewWindow_ns: TimestampNs = 1_000_000_000
    /// A mono tap is matched in the most recent earlier frame whose camera lies at least this far from the tap's ray
    /// (sideways to it), metres: about a stereo pair's baseline (EuRoC's is 11 cm).
    public var secondViewBaseline_m: Double = 0.1
    /// Earlier frames whose camera lies less than this far sideways of the ray are not used, metres.
    public var minSecondViewBaseline_m: Double = 0.04

    /// A consumer for the given taps.
    public init(taps: [MeasureTap], poseStd_m: Double = 0.01, pixelStd: Double = 1.0, edgeTolerance_m: Double = 0.15) {
        self.taps = taps; self.poseStd_m = poseStd_m; self.pixelStd = pixelStd; self.edgeTolerance_m = edgeTolerance_m
    }

    /// Builds from a spec (`taps` required; `pose_std`, `pixel_std`, `edge`, `images`, `max_rel_std` optional).
    public convenience init(spec: ConsumerSpec) throws {
        try spec.checkKeys(allowed: ["taps", "pose_std", "pixel_std", "edge", "images", "max_rel_std"])
        guard let path = try spec.single("taps") else { throw ConsumerError.missingKey(consumer: spec.name, key: "taps") }
        self.init(taps: try MeasureTap.load(path: path), poseStd_m: try spec.nonNegativeDouble("pose_std") ?? 0.01,
                  pixelStd: try spec.nonNegativeDouble("pixel_std") ?? 1.0,
                  edgeTolerance_m: try spec.nonNegativeDouble("edge") ?? 0.15)
        if try spec.onOff("images") == false { checker.photometric = nil }
        if let f = try spec.positiveDouble("max_rel_std") { maxRelativeStd = f }
    }

    /// See `FrameConsumer.consume(_:)`.
    public func consume(_ frame: WorldFrame) throws -> [any StreamRecord] {
        if pending == nil {
            pending = taps.map { ($0.time.resolve(firstFrame: frame.t_ns), $0) }.sorted { $0.t < $1.t }
        }
        var out: [any StreamRecord] = []
        while let next = pending?.first, next.t <= frame.t_ns {
            pending?.removeFirst()
            var use = frame
            if let prev = previous, abs(prev.t_ns - next.t) < abs(frame.t_ns - next.t) { use = prev }
            out.append(measure(next.tap, tapTime: next.t, on: use))
        }
        previous = frame
        if let image = frame.image, frame.isTrackingNormal, checker.photometric != nil,
           let next = pending?.first, next.t - frame.t_ns <= secondViewWindow_ns {
            recentViews.append((frame.t_ns, frame.T_W_C, image))
        }
        recentViews.removeAll { frame.t_ns - $0.t_ns > secondViewWindow_ns }
        return out
    }

    /// A kept earlier frame: its time, camera pose in the world and image.
    typealias KeptView = (t_ns: TimestampNs, T_W_C: SE3, image: GrayImage)

    /// The kept frames before `frame`, and how far each camera lies sideways of `ray` (metres).
    func earlierViews(for ray: WorldRay, from frame: WorldFrame) -> [(view: KeptView, sideways_m: Double)] {
        recentViews.filter { $0.t_ns < frame.t_ns }.map { v in
            let d = v.T_W_C.translation - ray.origin_W
            return (v, (d - ray.direction_W * d.dot(ray.direction_W)).norm)
        }
    }

    /// The most recent earlier frame whose camera lies `secondViewBaseline_m` sideways of the ray, else the one
    /// farthest sideways if at least `minSecondViewBaseline_m`; `nil` when none qualifies.
    func firstEarlierView(in earlier: [(view: KeptView, sideways_m: Double)]) -> KeptView? {
        (earlier.last { $0.sideways_m >= secondViewBaseline_m }
            ?? earlier.max { $0.sideways_m < $1.sideways_m }.flatMap { $0.sideways_m >= minSecondViewBaseline_m ? $0 : nil })?.view
    }

    /// `v` as a second view of `frame`'s camera.
    func secondView(_ v: KeptView, of frame: WorldFrame) -> SecondView {
        SecondView(image: v.image, camera: frame.camera.model, T_C0_C1: frame.T_W_C.inverse * v.T_W_C)
    }

    /// The earlier view a mono tap's pixel along `ray` (seen from `frame`) is matched in (`firstEarlierView`); `nil` in
    /// stereo (the frame has its right image) or when none qualifies.
    func secondView(for ray: WorldRay, from frame: WorldFrame) -> SecondView? {
        guard frame.input.stereoView == nil else { return nil }
        return firstEarlierView(in: earlierViews(for: ray, from: frame)).map { secondView($0, of: frame) }
    }

    /// The other views the images place a pixel along `ray` with (`TapPointChecker.imagePlacement`): in stereo the
    /// right image and the earlier frame `secondView` would choose in mono; in mono that frame and the most recent
    /// other one that lies `minSecondViewBaseline_m` sideways of the ray and as far from the first.
    func imageViews(for ray: WorldRay, from frame: WorldFrame) -> [SecondView] {
        let earlier = earlierViews(for: ray, from: frame)
        guard let first = firstEarlierView(in: earlier) else { return frame.input.stereoView.map { [$0] } ?? [] }
        if let right = frame.input.stereoView { return [right, secondView(first, of: frame)] }
        let second = earlier.last {
            $0.view.t_ns != first.t_ns && $0.sideways_m >= minSecondViewBaseline_m
                && ($0.view.T_W_C.translation - first.T_W_C.translation).norm >= minSecondViewBaseline_m
        }?.view
        return [secondView(first, of: frame)] + (second.map { [secondView($0, of: frame)] } ?? [])
    }

    /// See `FrameConsumer.finish()`.
    public func finish() throws -> [any StreamRecord] {
        guard let rest = pending else { return [] }
        pending = []
        return rest.map { item in
            if let last = previous { return measure(item.tap, tapTime: item.t, on: last) }
            return MeasurementRecord(t_ns: item.t, tap_t_ns: item.t, label: item.tap.label, status: "failed",
                                     reason: "no frames", points: [], segments: [], segment_std: [])
        }
    }

    /// Measures one tap on one frame.
    public func measure(_ tap: MeasureTap, tapTime: TimestampNs, on frame: WorldFrame) -> MeasurementRecord {
        var rec = MeasurementRecord(t_ns: frame.t_ns, tap_t_ns: tapTime, label: tap.label, status: "failed",
                                    points: [], segments: [], segment_std: [])
        guard abs(frame.t_ns - tapTime) <= maxTimeGap_ns else {
            rec.reason = "no frame within \(Double(maxTimeGap_ns) * 1e-9) s of the tap"; return rec
        }
        guard frame.isTrackingNormal else { rec.reason = "tracking not normal (\(frame.trackingState))"; return rec }
        var ends: [End] = []
        for (i, px) in tap.pixels.enumerated() {
            guard let ray = frame.ray(pixel: px) else {
                rec.reason = "pixel \(i) (\(px.x), \(px.y)) cannot be unprojected"; return rec
            }
            let view = secondView(for: ray, from: frame)
            let refusal: String
            if var hit = frame.raycast(pixel: px, horizontalGeometryMargin_m: edgeTolerance_m) {
                var verdict = checker.check(hit, ray: ray, pixel: px, frame: frame, secondView: view) {
                    frame.raycast(pixel: $0, horizontalGeometryMargin_m: edgeTolerance_m)
                }
                // Stereo: the earlier view has its say too (`earlierViewInStereo`).
                if case .confirmed = verdict, earlierViewInStereo, frame.input.stereoView != nil,
                   let earlier = firstEarlierView(in: earlierViews(for: ray, from: frame)) {
                    let second = checker.check(hit, ray: ray, pixel: px, frame: frame, secondView: secondView(earlier, of: frame)) {
                        frame.raycast(pixel: $0, horizontalGeometryMargin_m: edgeTolerance_m)
                    }
                    if case let .failed(why) = second { verdict = .failed(why + " (the earlier view)") }
                }
                switch verdict {
                case let .confirmed(surfaceStd_m, onEdge):
                    hit.surfaceStd_m = max(hit.surfaceStd_m, surfaceStd_m)
                    // Where the images place the pixel too, the two must agree.
                    if case let .placed(d, std, _) = checker.imagePlacement(pixel: px, ray: ray, frame: frame, views: imageViews(for: ray, from: frame),
                                                                            mappedPointsInFront: false) {
                        let along = hit.surfaceStd_m / max(hit.incidenceCosine, 0.1)
                        if abs(d - hit.distance_m) > checker.imageContradictionSigmas * (along * along + std * std).squareRoot() {
                            rec.reason = "pixel \(i) (\(px.x), \(px.y)): " + String(format: "the images place it at %.2f m (±%.2f m), the map on %@ at %.2f m",
                                                                                     d, std, checker.describe(hit) as NSString, hit.distance_m)
                            return rec
                        }
                    }
                    ends.append(End(hit: hit, ray: ray, onEdge: onEdge))
                    rec.points.append(.init(pixel: StreamJSON.array(px), position: StreamJSON.array(convention.point(hit.position_W)),
                                            target: hit.target.rawValue, plane_id: hit.planeId, distance: hit.distance_m))
                    continue
                case let .failed(why): refusal = "pixel \(i) (\(px.x), \(px.y)): \(why)"
                }
            } else {
                refusal = "pixel \(i) (\(px.x), \(px.y)) hits no surface"
            }
            // What the map cannot place, the images may.
            switch checker.imagePlacement(pixel: px, ray: ray, frame: frame, views: imageViews(for: ray, from: frame)) {
            case let .placed(distance_m, std_m, _):
                let end = End(ray: ray, distance_m: distance_m, std_m: std_m)
                ends.append(end)
                rec.points.append(.init(pixel: StreamJSON.array(px), position: StreamJSON.array(convention.point(end.position_W)),
                                        target: End.imagesTarget, plane_id: nil, distance: distance_m))
            case .failure:
                // The map's reason stands (a replay, which has no images, gives the same record).
                rec.reason = refusal
                return rec
            }
        }
        let f = frame.camera.model.intrinsics.fx
        var commonBySurface: [String: Double] = [:]
        var independentVar = 0.0
        for k in 0..<(ends.count - 1) {
            let a = ends[k], b = ends[k + 1]
            let seg = b.position_W - a.position_W
            let L = seg.norm
            rec.segments.append(L)
            let u = L > 0 ? seg / L : Vec3.zero
            var common = 0.0, indep = 0.0
            // An end on a surface's rim is placed no better than the edge test's radius (the finger could be that
            // far off the corner without the surfaces around it disagreeing).
            func pixelTerm(_ e: End) -> Double {
                e.distance_m * (e.onEdge ? max(pixelStd, checker.edgeRadius_px) : pixelStd) / (f * max(e.incidenceCosine, 0.1))
            }
            indep += pow(pixelTerm(a), 2) + pow(pixelTerm(b), 2)
            // Two estimated planes are two fits, to the landmarks of two cones, each with its own offset and tilt error:
            // different surfaces, however parallel (V1_01 30 s, mono: a cabinet top's inset length measured on two
            // estimates less than 12° apart, one tilted 25° from the top, got the common σ of one surface, ±0.084 m,
            // for a −72 % error).
            if let id = a.planeId, id == b.planeId {
                let sigmaH = (pow(max(a.surfaceStd_m, b.surfaceStd_m), 2) + poseStd_m * poseStd_m).squareRoot()
                let H = (a.distance_m * a.incidenceCosine + b.distance_m * b.incidenceCosine) / 2
                common = H > 0 ? L * sigmaH / H : 0
                commonBySurface[id, default: 0] += common
            } else {
                for e in [a, b] {
                    let along = (e.surfaceStd_m * e.surfaceStd_m + poseStd_m * poseStd_m).squareRoot() / max(e.incidenceCosine, 0.1)
                    indep += pow(abs(u.dot(e.ray.direction_W)) * along, 2)
                }
            }
            rec.segment_std.append((common * common + indep).squareRoot())
            independentVar += indep
        }
        rec.total = rec.segments.reduce(0, +)
        let common = commonBySurface.values.reduce(0, +)
        rec.total_std = (common * common + independentVar).squareRoot()
        if let total = rec.total, let sd = rec.total_std, checker.enabled, sd > maxRelativeStd * total {
            rec.reason = String(format: "too uncertain: ±%.3f m (1 σ) on %.3f m, more than %.3g %%", sd, total, 100 * maxRelativeStd)
            return rec
        }
        rec.status = "ok"
        return rec
    }
}

/// One end of a measured segment: where the map placed a tapped pixel (a checked raycast hit), or where the images did.
struct End {
    /// The `target` of an end the images placed, in the stream's `measurement` records.
    static let imagesTarget = "images"
    /// The tapped pixel's ray, world.
    var ray: WorldRay
    /// Distance along the ray, metres.
    var distance_m: Double
    /// 1-σ of the end along its surface's normal (along the ray for an image end), metres.
    var surfaceStd_m: Double
    /// |cos| of the angle between the ray and the surface's normal (1 for an image end).
    var incidenceCosine: Double
    /// The detected plane it lies on, if any.
    var planeId: String?
    /// On its surface's rim (see `TapPointVerdict.confirmed`).
    var onEdge: Bool

    /// The end point, world, metres.
    var position_W: Vec3

    /// An end on a raycast hit.
    init(hit: RaycastResult, ray: WorldRay, onEdge: Bool) {
        self.ray = ray
        position_W = hit.position_W
        distance_m = hit.distance_m
        surfaceStd_m = hit.surfaceStd_m
        incidenceCosine = hit.incidenceCosine
        planeId = hit.planeId
        self.onEdge = onEdge
    }

    /// An end the images placed: at `distance_m` along `ray`, known to `std_m` along it.
    init(ray: WorldRay, distance_m: Double, std_m: Double) {
        self.ray = ray
        position_W = ray.point(at: distance_m)
        self.distance_m = distance_m
        surfaceStd_m = std_m
        incidenceCosine = 1
        planeId = nil
        onEdge = false
    }
}
