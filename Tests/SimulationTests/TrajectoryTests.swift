import Foundation
import Geometry
import Testing
@testable import Simulation

/// All built-in trajectory variants that tests sweep over.
private func variants() throws -> [(String, AnalyticTrajectory)] {
    let room = Scene.room(), yard = Scene.courtyard()
    let special = TrajectoryOptions(stillSegment: TimeSegment(start: 5, duration: 3),
                                    pureRotationSegment: TimeSegment(start: 9, duration: 3),
                                    fastShakeSegment: TimeSegment(start: 13, duration: 2))
    return [
        ("room.handheld", try AnalyticTrajectory.make(name: "handheld", scene: room)),
        ("room.orbit", try AnalyticTrajectory.make(name: "orbit", scene: room)),
        ("room.handheld.moving", try AnalyticTrajectory.make(name: "handheld", scene: room, options: TrajectoryOptions(startMoving: true))),
        ("room.handheld.special", try AnalyticTrajectory.make(name: "handheld", scene: room, options: special)),
        ("room.orbit.special", try AnalyticTrajectory.make(name: "orbit", scene: room, options: special)),
        ("courtyard.handheld", try AnalyticTrajectory.make(name: "handheld", scene: yard)),
    ]
}

@Test func analyticDerivativesMatchFiniteDifferences() throws {
    for (label, traj) in try variants() {
        var t = 0.05
        while t < 20 {
            let s = traj.state(at: t)
            let h = 1e-4
            let sm = traj.state(at: t - h), sp = traj.state(at: t + h)
            // Central differences have O(h²) truncation error: with h = 1e-4 s and derivatives of the
            // trajectory below ~1e4 in magnitude, that is < 1e-5; round-off is ~1e-16/1e-4 = 1e-12.
            let vFD = (sp.T_W_B.translation - sm.T_W_B.translation) / (2 * h)
            let aFD = (sp.v_W - sm.v_W) / (2 * h)
            let wFD = (sm.T_W_B.rotation.inverse * sp.T_W_B.rotation).log / (2 * h)
            #expect((vFD - s.v_W).norm < 1e-5, "\(label) velocity at t=\(t)")
            #expect((aFD - s.a_W).norm < 1e-4, "\(label) acceleration at t=\(t)")
            #expect((wFD - s.omega_B).norm < 1e-5, "\(label) angular velocity at t=\(t)")
            // Second difference of the position checks acceleration against the pose itself (h = 1e-3:
            // truncation ~h²·p''''/12 < 1e-4, round-off ~1e-15/1e-6 = 1e-9).
            let h2 = 1e-3
            let p0 = traj.state(at: t - h2).T_W_B.translation, p2 = traj.state(at: t + h2).T_W_B.translation
            let a2 = (p2 - 2 * s.T_W_B.translation + p0) / (h2 * h2)
            #expect((a2 - s.a_W).norm < 2e-3, "\(label) acceleration vs pose at t=\(t)")
            t += 0.173
        }
    }
}

@Test func trajectoriesAreC2AcrossRampsAndSegments() throws {
    // At every knot of the speed profiles the acceleration and angular velocity must not jump:
    // compare just before and just after (0.2 µs apart; a C² curve changes by ~|jerk|·2e-7 < 1e-4
    // even with the shake's ~200 m/s³ jerk, while a C¹-only join would jump by ~0.1 m/s²).
    for (label, traj) in try variants() {
        var knots: [Double] = [13, 13 + 2.0 / 3, 15 - 2.0 / 3, 15]
        for s in traj.positionProfile.steps + traj.rotationProfile.steps { knots += [s.start, s.start + s.duration] }
        for k in knots {
            let a = traj.state(at: k - 1e-7), b = traj.state(at: k + 1e-7)
            #expect((a.a_W - b.a_W).norm < 1e-4, "\(label) acceleration jumps at \(k)")
            #expect((a.omega_B - b.omega_B).norm < 1e-4, "\(label) angular velocity jumps at \(k)")
        }
    }
}

@Test func defaultStartIsAtRestThenMoves() throws {
    let traj = try AnalyticTrajectory.make(name: "handheld", scene: .room())
    let p0 = traj.pose(at: 0)
    for t in stride(from: 0.0, through: 2.0, by: 0.1) {
        let s = traj.state(at: t)
        #expect(s.v_W == .zero && s.a_W == .zero && s.omega_B == .zero)
        #expect(s.T_W_B == p0)
    }
    #expect(traj.velocity_W(at: 4).norm > 0.4)
    let moving = try AnalyticTrajectory.make(name: "handheld", scene: .room(), options: TrajectoryOptions(startMoving: true))
    #expect(moving.velocity_W(at: 0).norm > 0.4)
}

@Test func segmentsStopTranslationAndRotationAsSpecified() throws {
    let opts = TrajectoryOptions(stillSegment: TimeSegment(start: 5, duration: 3),
                                 pureRotationSegment: TimeSegment(start: 9, duration: 3))
    let traj = try AnalyticTrajectory.make(name: "handheld", scene: .room(), options: opts)
    // Still: exactly at rest between the ramps (6 … 7 s).
    for t in stride(from: 6.0, through: 7.0, by: 0.25) {
        let s = traj.state(at: t)
        #expect(s.v_W.norm < 1e-12 && s.omega_B.norm < 1e-12)
    }
    // Pure rotation: no translation but rotation (10 … 11 s).
    for t in stride(from: 10.0, through: 11.0, by: 0.25) {
        let s = traj.state(at: t)
        #expect(s.v_W.norm < 1e-12)
        #expect(s.omega_B.norm > 0.01)
    }
}

@Test func handheldWalkIsRealisticInTheRoom() throws {
    let room = Scene.room()
    let traj = try AnalyticTrajectory.make(name: "handheld", scene: room)
    var speedSum = 0.0, n = 0
    let rig = SimRig.euroc()
    for t in stride(from: 4.0, to: 60.0, by: 0.05) {
        let s = traj.state(at: t)
        let p = s.T_W_B.translation
        // ≥ 0.5 m from every wall, between floor and ceiling.
        #expect(p.x > 0.5 && p.x < 5.5 && p.y > 0.5 && p.y < 4.5 && p.z > 1.2 && p.z < 1.8, "t=\(t) p=\(p)")
        let speed = s.v_W.norm
        #expect(speed > 0.3 && speed < 1.5, "t=\(t) speed=\(speed)")
        speedSum += speed; n += 1
        // The camera's optical axis meets a surface at least 0.5 m away.
        let T_W_C = s.T_W_B * rig.cameras[0].T_B_C
        let hit = try #require(room.raycast(origin_W: T_W_C.translation, direction_W: T_W_C.rotation.act(Vec3(0, 0, 1))))
        #expect(hit.distance > 0.5, "t=\(t) looks at a surface \(hit.distance) m away")
    }
    let mean = speedSum / Double(n)
    #expect(mean > 0.5 && mean < 1.2, "mean walking speed \(mean)")
}

@Test func cameraLooksAlongLookFrameX() throws {
    // With the EuRoC extrinsics, cam0's optical axis must be the look frame's x-axis: for the orbit,
    // horizontally towards the target.
    let scene = Scene.room()
    let traj = try AnalyticTrajectory.make(name: "orbit", scene: scene, options: TrajectoryOptions(startMoving: true))
    let T_W_C = traj.pose(at: 3) * SimRig.eurocT_B_C0
    let axis = T_W_C.rotation.act(Vec3(0, 0, 1))
    let toTarget = scene.orbitTarget.center - traj.pose(at: 3).translation
    let a2 = Vec2(axis.x, axis.y), b2 = Vec2(toTarget.x, toTarget.y)
    let horizontalAngle = acos(a2.dot(b2) / (a2.norm * b2.norm))
    // The yaw wobble is ≤ 0.12 rad; the camera–body offset adds a few cm, i.e. < 0.05 rad at 1.4 m.
    #expect(horizontalAngle < 0.2)
    // The optical axis points down at the table (eye 0.7 m above it at 1.4 m: ≈ 27° down).
    let downAngle = asin(-axis.z) * 180 / .pi
    #expect(downAngle > 18 && downAngle < 36, "camera looks \(downAngle)° down")
    // Image "down" (camera +y) points down in the world.
    #expect(T_W_C.rotation.act(Vec3(0, 1, 0)).z < -0.8)
}
