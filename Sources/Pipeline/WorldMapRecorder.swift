import Estimation
import Foundation
import Geometry
import Imaging
import Sensors
import Vision
import World
import WorldMap

/// Collects what `TrackingPipeline.worldMap()` saves besides the map reuse's points, while tracking is normal:
/// - keyframes, every `interval_ns` of motion (the camera moved `minMotion_m` or turned `minTurn_rad` since the
///   last one), each with the frame's features that have a descriptor and the map points they observe. A keyframe is
///   usually taken before most of its tracks are triangulated, so each keypoint also keeps its track: when the map is
///   saved, a keypoint that observed no map point when it was taken is linked to its track's point if one was saved
///   (`WorldMapConversion.map`);
/// - more points: every landmark with a descriptor and a σ up to `maxPointStd_m`, from `warmup_ns` after tracking
///   became normal. The map reuse keeps only its most precise points (σ ≤ 3 cm, after 3 s), which leaves a map too
///   sparse to be recognised from another walk past the same place; these extra points serve the relocaliser
///   (a run that loads the map hands only the points the map reuse would keep to its estimator). Each keeps the map
///   scale it was recorded at (`MapReobserver.scale`), so that the saved map has them at the scale the map reuse's
///   points have followed to since (mono: `VIOEstimator.mapScale`).
final class WorldMapRecorder {
    /// A keyframe whose keypoints refer to `MapReobserver` ids (track ids, or loaded points' ids): `mapId` the point
    /// the track observed when the keyframe was taken (a loaded point it re-observed, or its own), `track` its track.
    struct Recorded {
        var t_ns: TimestampNs
        var T_W_C: SE3
        var keypoints: [(pixel: SIMD2<Float>, mapId: Int?, track: Int, descriptor: ORBDescriptor)]
    }

    let interval_ns: TimestampNs = 500_000_000
    let minMotion_m = 0.05
    let minTurn_rad = 5 * Double.pi / 180
    private(set) var keyframes: [Recorded] = []
    let maxPointStd_m = 0.06
    let warmup_ns: TimestampNs = 1_000_000_000
    private var firstNormal_ns: TimestampNs?
    /// Landmarks by track id, in the reported frame, with the descriptor of their track.
    private(set) var points: [Int: MapReobserver.MapPoint] = [:]
    /// The map scale each of `points` was recorded at (`MapReobserver.scale` then), by track id.
    private(set) var recordedScale: [Int: Double] = [:]

    /// Adds a normally tracked frame's landmarks (reported frame) that have a descriptor; a landmark reported again
    /// keeps its most precise position.
    func add(_ landmarks: [Landmark], t_ns: TimestampNs, reobserver: MapReobserver) {
        if firstNormal_ns == nil { firstNormal_ns = t_ns }
        guard t_ns - (firstNormal_ns ?? t_ns) >= warmup_ns else { return }
        for l in landmarks where l.std_m <= maxPointStd_m {
            if let p = points[l.id], p.std_m <= l.std_m { points[l.id]?.lastSeen_ns = t_ns; continue }
            guard let d = reobserver.descriptor(ofTrack: l.id) else { continue }
            points[l.id] = MapReobserver.MapPoint(id: l.id, p_W: l.p_W, std_m: l.std_m, descriptor: d, lastSeen_ns: t_ns)
            recordedScale[l.id] = reobserver.scale
        }
    }

    /// Forgets every keyframe and point recorded so far (they are in a reported frame that was wrong: a revoked
    /// relocalisation).
    func removeAll() {
        keyframes = []
        points = [:]
        recordedScale = [:]
        firstNormal_ns = nil
    }

    /// Considers a normally tracked frame: camera 0 at `T_W_C` in the reported frame.
    func consider(_ features: [TrackedFeature], T_W_C: SE3, t_ns: TimestampNs, reobserver: MapReobserver) {
        if let last = keyframes.last {
            guard t_ns - last.t_ns >= interval_ns else { return }
            let moved = (T_W_C.translation - last.T_W_C.translation).norm
            guard moved >= minMotion_m || last.T_W_C.rotation.angle(to: T_W_C.rotation) >= minTurn_rad else { return }
        }
        let keypoints = features.compactMap { f -> (pixel: SIMD2<Float>, mapId: Int?, track: Int, descriptor: ORBDescriptor)? in
            guard let d = reobserver.descriptor(ofTrack: f.id) else { return nil }
            return (SIMD2(Float(f.pixel.x), Float(f.pixel.y)), reobserver.mapPointId(ofTrack: f.id), f.id, d)
        }
        keyframes.append(Recorded(t_ns: t_ns, T_W_C: T_W_C, keypoints: keypoints))
    }
}

/// Conversions between the world layer's planes and anchors and the saved map's.
enum WorldMapConversion {
    /// A plane as saved.
    static func plane(_ p: PlaneAnchor) -> WorldMap.Plane {
        WorldMap.Plane(id: p.id, isVertical: p.alignment == .vertical, classification: p.classification.rawValue,
                       T_W_P: p.T_W_P, boundaryLocal: p.boundaryLocal, offset_m: p.offset_m, offsetStd_m: p.offsetStd_m,
                       pointCount: p.pointCount)
    }

    /// A saved plane as the world layer holds it (an unknown classification word is `none`).
    static func plane(restoring p: WorldMap.Plane, t_ns: TimestampNs) -> PlaneAnchor {
        PlaneAnchor(restoring: p.id, alignment: p.isVertical ? .vertical : .horizontal,
                    classification: PlaneClassification(rawValue: p.classification) ?? .none, T_W_P: p.T_W_P,
                    boundaryLocal: p.boundaryLocal, offset_m: p.offset_m, offsetStd_m: p.offsetStd_m,
                    pointCount: p.pointCount, t_ns: t_ns)
    }

    /// A user anchor as saved.
    static func anchor(_ a: UserAnchor) -> WorldMap.Anchor {
        WorldMap.Anchor(id: a.id, name: a.name, T_W_A: a.T_W_A, planeId: a.planeId, created_ns: a.created_ns)
    }

    /// The map: `points` (the reobserver's, in the run's frame, at map scale `mapScale`) moved into the saved frame by
    /// `T_Ws_W`, then the recorder's other points (in the reported frame, i.e. the saved one; each scaled about the run
    /// frame's origin, as `MapReobserver.follow` scales the reobserver's, from the map scale it was recorded at to
    /// `mapScale`), the loaded map's points the map reuse does
    /// not hold, renumbered 0, 1, …; the loaded map's keyframes (already in the saved frame; their keypoints' ids
    /// are the reobserver's minus `idBase`), then the recorded ones (in the reported frame, i.e. the saved one), each
    /// keypoint linked to the point its track observed when the keyframe was taken or, failing that, to the point its
    /// track became later (the map reuse's or the recorder's, whose ids are track ids);
    /// planes and anchors as the session has them (also in the reported frame).
    static func map(points: [MapReobserver.MapPoint], mapScale: Double = 1, recorded: WorldMapRecorder?, T_Ws_W: SE3,
                    loaded: (points: [WorldMap.MapPoint], keyframes: [WorldMap.Keyframe], idBase: Int)?, session: WorldSession,
                    saved_ns: TimestampNs) -> WorldMap {
        // The map reuse's points (moved into the saved frame), then the recorder's other points (already there, brought
        // to the map's scale now).
        var all = points.map { p -> MapReobserver.MapPoint in var p = p; p.p_W = T_Ws_W.act(p.p_W); return p }
        let kept = Set(points.map(\.id))
        let T_W_Ws = T_Ws_W.inverse
        let extra = (recorded.map { Array($0.points.values) } ?? []).map { p -> MapReobserver.MapPoint in
            let k = mapScale / (recorded?.recordedScale[p.id] ?? mapScale)
            guard k != 1, k.isFinite, k > 0 else { return p }
            var p = p
            p.p_W = T_Ws_W.act(k * T_W_Ws.act(p.p_W))
            p.std_m *= k
            return p
        }
        all += extra.filter { !kept.contains($0.id) }.sorted { $0.id < $1.id }
        // A loaded map's points that the map reuse did not take (or dropped) stay, in the saved frame already.
        if let loaded {
            all += loaded.points.filter { !kept.contains(loaded.idBase + $0.id) }.map {
                MapReobserver.MapPoint(id: loaded.idBase + $0.id, p_W: $0.p_W, std_m: $0.std_m, descriptor: $0.descriptor,
                                       lastSeen_ns: $0.lastSeen_ns)
            }
        }
        var fileId: [Int: Int] = [:]
        var out = WorldMap(saved_ns: saved_ns)
        for (i, p) in all.enumerated() {
            fileId[p.id] = i
            out.points.append(WorldMap.MapPoint(id: i, p_W: p.p_W, std_m: p.std_m, descriptor: p.descriptor,
                                                lastSeen_ns: p.lastSeen_ns))
        }
        if let loaded {
            out.keyframes = loaded.keyframes.map { k in
                var k = k
                k.keypoints = k.keypoints.map { var kp = $0; kp.mapPointId = kp.mapPointId.flatMap { fileId[loaded.idBase + $0] }; return kp }
                return k
            }
        }
        out.keyframes += (recorded?.keyframes ?? []).map { k in
            WorldMap.Keyframe(t_ns: k.t_ns, T_W_C: k.T_W_C, keypoints: k.keypoints.map {
                WorldMap.Keypoint(pixel: $0.pixel, mapPointId: $0.mapId.flatMap { fileId[$0] } ?? fileId[$0.track], descriptor: $0.descriptor)
            })
        }
        out.planes = session.planes.map(plane)
        out.anchors = session.userAnchors.map(anchor)
        return out
    }
}
