import Estimation
import Foundation
import Geometry
import Imaging
import Sensors
import Testing
import Vision
import World
import WorldMap
@testable import Pipeline

/// A keyframe is taken when the camera has moved, usually before its tracks are triangulated (a mono track needs
/// parallax first): its keypoints must still be linked, in the saved map, to the points their tracks became later.
@Suite struct WorldMapRecorderTests {
    static let camera = CameraCalibration(name: "cam0",
                                          model: CameraModel(width: 320, height: 240, intrinsics: PinholeIntrinsics(fx: 300, fy: 300, cx: 160, cy: 120)),
                                          rate_hz: 20, T_B_C: SE3())

    /// A mono map reuse (no warm-up) and a recorder, after 20 tracks started at t = 0 (described, none mapped yet).
    static func started() throws -> (probe: MapReobserverTests, reobserver: MapReobserver, recorder: WorldMapRecorder,
                                     features: [TrackedFeature]) {
        let probe = MapReobserverTests()
        var options = MapReuseOptions()
        options.warmup_ns = 0
        let reobserver = MapReobserver(camera: Self.camera, options: options, stereo: false)
        let recorder = WorldMapRecorder()
        let features = probe.features(firstId: 0, age: 1)
        try reobserver.describeNewTracks(features, image: MapReobserverTests.texture(seed: 3), t_ns: 0)
        recorder.add([], t_ns: 0, reobserver: reobserver)
        return (probe, reobserver, recorder, features)
    }

    @Test("keypoints whose tracks are mapped after the keyframe was taken are linked to their points when the map is saved")
    func keyframeKeypointsLinkedAtSave() throws {
        // 20 tracks start at t = 0 and the keyframe is taken at once: no track has a point yet.
        let (probe, reobserver, recorder, features) = try Self.started()
        recorder.consider(features, T_W_C: SE3(), t_ns: 0, reobserver: reobserver)
        #expect(recorder.keyframes.count == 1)
        #expect(recorder.keyframes[0].keypoints.allSatisfy { $0.mapId == nil })
        // 1.5 s later (after the recorder's warm-up), 12 of them are triangulated: 6 precise enough for the map reuse,
        // 6 only for the recorder's wider bound; 8 never are.
        let t: TimestampNs = 1_500_000_000
        var landmarks = probe.landmarks(for: Array(features[0..<12]))
        for i in 6..<12 { landmarks[i].std_m = 0.05 }
        reobserver.add(landmarks, t_ns: t)
        recorder.add(landmarks, t_ns: t, reobserver: reobserver)

        let map = WorldMapConversion.map(points: reobserver.mapPoints, recorded: recorder, T_Ws_W: SE3(), loaded: nil,
                                         session: WorldSession(), saved_ns: t)
        let saved = try WorldMapFile.decode(WorldMapFile.encode(map), path: "test")
        let keyframe = try #require(saved.keyframes.first)
        #expect(keyframe.keypoints.count == 20)
        let byId = Dictionary(uniqueKeysWithValues: saved.points.map { ($0.id, $0) })
        for (i, kp) in keyframe.keypoints.enumerated() {
            if i < 12 {
                let id = try #require(kp.mapPointId, "keypoint \(i) (track \(features[i].id), mapped) is not linked")
                let p = try #require(byId[id])
                #expect((p.p_W - landmarks[i].p_W).norm < 1e-9, "keypoint \(i) linked to the wrong point")
            } else {
                #expect(kp.mapPointId == nil, "keypoint \(i) (track never mapped) is linked")
            }
        }
    }

    @Test("the recorder's points are saved at the map scale the map reuse's points followed to since they were recorded")
    func recordedPointsFollowTheMapScale() throws {
        let (probe, reobserver, recorder, features) = try Self.started()
        // Points 0–5 precise enough for the map reuse, 6–11 only for the recorder, recorded at map scale 1; then the
        // estimator's map scale becomes 1.02, and points 12–15 (the recorder's only) are recorded at it.
        var landmarks = probe.landmarks(for: Array(features[0..<12]))
        for i in 6..<12 { landmarks[i].std_m = 0.05 }
        reobserver.add(Array(landmarks[0..<6]), t_ns: 1_500_000_000)
        recorder.add(landmarks, t_ns: 1_500_000_000, reobserver: reobserver)
        reobserver.follow(scale: 1.02)
        var later = probe.landmarks(for: Array(features[12..<16]))
        for i in later.indices { later[i].std_m = 0.05 }
        recorder.add(later, t_ns: 1_600_000_000, reobserver: reobserver)
        // Relocalised: the saved (reported) frame is 2 m and 30° from the run's.
        let T_Ws_W = SE3(rotation: SO3(angle: Double.pi / 6, axis: Vec3(0, 0, 1)), translation: Vec3(2, -1, 0.5))
        let map = WorldMapConversion.map(points: reobserver.mapPoints, mapScale: reobserver.scale, recorded: recorder,
                                         T_Ws_W: T_Ws_W, loaded: nil, session: WorldSession(), saved_ns: 1_600_000_000)
        #expect(map.points.count == 16)
        // The map reuse's points: followed to 1.02 about the run frame's origin, then moved into the saved frame.
        for p in map.points.prefix(6) {
            #expect(landmarks[0..<6].contains { (T_Ws_W.act(1.02 * $0.p_W) - p.p_W).norm < 1e-9 }, "map-reuse point \(p.id)")
        }
        // The recorder's points recorded at scale 1 (reported frame = saved frame): scaled by 1.02 about the run
        // frame's origin; those recorded at 1.02 unchanged.
        let saved = Array(map.points.dropFirst(6))
        for (l, p) in zip(landmarks[6..<12], saved.prefix(6)) {
            let expected = T_Ws_W.act(1.02 * T_Ws_W.inverse.act(l.p_W))
            #expect((p.p_W - expected).norm < 1e-9, "recorded point \(l.id) at \(p.p_W), expected \(expected)")
            #expect(abs(p.std_m - 1.02 * l.std_m) < 1e-12)
        }
        for (l, p) in zip(later, saved.dropFirst(6)) {
            #expect((p.p_W - l.p_W).norm < 1e-12, "point \(l.id) recorded at the current scale moved")
            #expect(p.std_m == l.std_m)
        }
    }
}
