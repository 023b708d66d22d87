import Foundation
import Geometry
import Testing
@testable import Consumers
@testable import World

@Suite struct StreamConventionTests {
    @Test func levelCameraLookingAlongWorldYIsARKitIdentity() {
        // OpenCV camera looking along world +y, level: x_C = x_W, y_C = −z_W, z_C = +y_W.
        let T_W_C = SE3(rotation: SO3(matrix: Mat3(columns: Vec3(1, 0, 0), Vec3(0, 0, -1), Vec3(0, 1, 0))),
                        translation: Vec3(1, 2, 3))
        let T = StreamConvention.arkit.cameraPose(T_W_C)
        // ARKit: world y up, so world +y (ours) is −z (ARKit's), where an ARKit camera with identity rotation looks.
        #expect(T.rotation.angle < 1e-12)
        #expect((T.translation - Vec3(1, 3, -2)).norm < 1e-12)
        #expect(StreamConvention.worldtrack.cameraPose(T_W_C) == T_W_C)
    }

    @Test func surfaceFramesGetYAlongTheNormal() {
        // A floor anchor (our z = world up) → ARKit y = world up (ARKit's y), same x.
        let floor = StreamConvention.arkit.surfacePose(SE3(translation: Vec3(0.5, 0.5, 0)))
        #expect(floor.rotation.angle < 1e-12 && (floor.translation - Vec3(0.5, 0, -0.5)).norm < 1e-12)
        // A wall facing −y (ours): ARKit's anchor y axis is that normal, which is +z in ARKit's world.
        let wall = PlaneAnchor.frameRotation(normal: Vec3(0, -1, 0))
        let a = StreamConvention.arkit.surfacePose(SE3(rotation: wall))
        #expect((a.rotation.act(Vec3(0, 1, 0)) - Vec3(0, 0, 1)).norm < 1e-12)
        #expect(abs(a.rotation.matrix.determinant - 1) < 1e-12)
    }

    @Test func pointsSeenFromTheCameraAgreeInBothConventions() {
        var rng = SeededRandom(seed: 3)
        for _ in 0..<20 {
            let T_W_C = SE3(rotation: SO3.exp(Vec3(rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(-2, 2))),
                            translation: Vec3(rng.uniform(-3, 3), rng.uniform(-3, 3), rng.uniform(0, 2)))
            let p_W = Vec3(rng.uniform(-3, 3), rng.uniform(-3, 3), rng.uniform(0, 2))
            let p_C = T_W_C.inverse.act(p_W)
            let p_Ca = StreamConvention.arkit.cameraPose(T_W_C).inverse.act(StreamConvention.arkit.point(p_W))
            // ARKit's camera frame is OpenCV's with y and z flipped.
            #expect((p_Ca - Vec3(p_C.x, -p_C.y, -p_C.z)).norm < 1e-9)
        }
    }

    @Test func arkitStreamKeepsTheSchemaAndConvertsPoses() throws {
        let session = WorldSession()
        let stream = WorldStream(session: session, consumers: [try ConsumerFactory.make("cursor", convention: .arkit)],
                                 writer: nil, convention: .arkit)
        var gen = RoomLandmarks(seed: 1)
        var records: [any StreamRecord] = []
        for i in 0..<3 { records += try stream.process(frameInput(i, landmarks: gen.batch(floor: 40, table: 10, wall: 15))) }
        let frame = try #require(records.compactMap { $0 as? FrameRecord }.last)
        let T = SE3(rowMajor4x4: frame.T_world_camera)
        let expected = StreamConvention.arkit.cameraPose(defaultPose)
        #expect((T.translation - expected.translation).norm < 1e-12 && (T.rotation.inverse * expected.rotation).angle < 1e-9)
        // The floor is at ARKit height (y) 0 and its normal is ARKit's +y.
        let floorAdded = try #require(records.compactMap { $0 as? AnchorEventRecord }.first { $0.plane?.classification == "floor" })
        let n = try #require(floorAdded.plane?.normal)
        #expect(abs(floorAdded.position[1]) < 0.02 && abs(n[0]) < 1e-12 && abs(n[1] - 1) < 1e-12 && abs(n[2]) < 1e-12)
        let cursor = try #require(records.compactMap { $0 as? CursorRecord }.last)
        let cursorPosition = try #require(cursor.position)
        #expect(cursor.state == "onPlane" && abs(cursorPosition[1]) < 0.02)
        #expect(try #require(cursor.normal)[1] > 0.999)
        // Both conventions write complete frame records (every required field) that read back unchanged.
        let w = StreamWriter(), reader = StreamRecordDecoder()
        let defaultFrame = FrameRecord(session.process(frameInput(3, landmarks: [])))
        #expect(try reader.decode(w.encode(frame)) == .frame(frame))
        #expect(try reader.decode(w.encode(defaultFrame)) == .frame(defaultFrame))
    }
}
