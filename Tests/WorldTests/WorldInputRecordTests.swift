import Consumers
import Estimation
import Foundation
import Geometry
import Sensors
import Testing
import World

/// The `world_input` record carries the world layer's input exactly: poses and landmarks read back bit for bit.
@Suite("world_input record")
struct WorldInputRecordTests {
    static let camera = CameraCalibration(
        name: "cam0",
        model: CameraModel(width: 752, height: 480, intrinsics: PinholeIntrinsics(fx: 458.654, fy: 457.296, cx: 367.215, cy: 248.375),
                           distortion: .radialTangential(k1: -0.28340811, k2: 0.07395907, p1: 0.00019359, p2: 1.76187114e-05)),
        rate_hz: 20,
        T_B_C: SE3(rotation: SO3.exp(Vec3(0.01, -0.02, 1.57)), translation: Vec3(-0.0216401454975, -0.064676986768, 0.00981073058949)))

    @Test("encode → JSON → decode gives the same poses, landmarks and calibration, bit for bit")
    func roundTripIsExact() throws {
        var rng = SeededRandom(seed: 17)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for _ in 0..<50 {
            // Composed rotations: quaternions that are unit only to rounding, with either sign of w.
            let R = SO3.exp(Vec3(rng.gaussian(), rng.gaussian(), rng.gaussian())) * SO3.exp(Vec3(rng.gaussian(), 0, rng.gaussian()))
            let T_W_C = SE3(rotation: R, translation: Vec3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * 3)
            let T_W_B = T_W_C * Self.camera.T_B_C.inverse
            let landmarks = (0..<20).map { i in
                Landmark(id: 1000 + i, p_W: Vec3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * 4, std_m: abs(rng.gaussian()) * 0.01)
            }
            let input = WorldFrameInput(t_ns: 1_403_715_273_262_142_976, trackingState: .limited(.initializing), T_W_C: T_W_C,
                                        T_W_B: T_W_B, camera: Self.camera, landmarks: landmarks, featureCount: 123)
            let data = try encoder.encode(WorldInputRecord(input, includeCamera: true))
            let read = try JSONDecoder().decode(WorldInputRecord.self, from: data)
            let camera = try #require(read.camera).calibration()
            #expect(camera == Self.camera)
            let back = try read.worldFrameInput(camera: camera)
            #expect(back.T_W_C == input.T_W_C && back.T_W_B == input.T_W_B)
            #expect(back.landmarks == input.landmarks)
            #expect(back.trackingState == input.trackingState && back.featureCount == 123 && back.t_ns == input.t_ns)
        }
    }

    @Test("malformed records are refused naming the field")
    func malformed() throws {
        let input = WorldFrameInput(t_ns: 5, trackingState: .normal, T_W_C: .identity, T_W_B: .identity, camera: Self.camera,
                                    landmarks: [Landmark(id: 3, p_W: Vec3(1, 2, 3), std_m: 0.01)], featureCount: 1)
        var record = WorldInputRecord(input, includeCamera: true)
        record.camera_pose = [1, 0, 0]
        #expect(throws: WorldInputRecordError.self) { try record.worldFrameInput(camera: Self.camera) }
        record = WorldInputRecord(input, includeCamera: true)
        record.body_pose[0] = 2   // not a unit quaternion
        #expect(throws: WorldInputRecordError.self) { try record.worldFrameInput(camera: Self.camera) }
        record = WorldInputRecord(input, includeCamera: true)
        record.landmarks = [[3.5, 1, 2, 3, 0.01]]
        #expect(throws: WorldInputRecordError.self) { try record.worldFrameInput(camera: Self.camera) }
        record = WorldInputRecord(input, includeCamera: true)
        record.tracking_state = "sleeping"
        #expect(throws: WorldInputRecordError.self) { try record.worldFrameInput(camera: Self.camera) }
        var camera = try #require(record.camera)
        camera.distortion = "fisheye"
        #expect(throws: WorldInputRecordError.self) { try camera.calibration() }
    }
}
