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

    @Test("keypoints whose tracks are mapped after the keyframe was taken are linked to their points when the map is saved")
    func keyframeKeypointsLinkedAtSave() throws {
        let image = MapReobserverTests.texture(seed: 3)
        let probe = MapReobserverTests()
        var options = MapReuseOptions()
        options.warmup_ns = 0
        let reobserver = MapReobserver(camera: Self.camera, options: options, stereo: false)
        let recorder = WorldMapRecorder()
        // 20 tracks start at t = 0 and the keyframe is taken at once: no track has a point yet.
        let features = probe.features(firstId: 0, age: 1)
        try reobserver.describeNewTracks(features, image: image, t_ns: 0)
        recorder.add([], t_ns: 0, reobserver: reobserver)
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
}
