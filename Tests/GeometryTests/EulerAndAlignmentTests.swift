import Testing
import Foundation
@testable import Geometry

/// Roll/pitch/yaw (z-up, R = Rz(yaw) Ry(pitch) Rx(roll)), `fromTwoVectors` and Mat3 helpers.
struct EulerAndAlignmentTests {
    @Test func knownAxes() {
        // Yaw 90°: body x (forward) points along world y.
        #expect(maxDiff(SO3(roll: 0, pitch: 0, yaw: Double.pi / 2).act(Vec3(1, 0, 0)), Vec3(0, 1, 0)) < 1e-15)
        // Pitch 90° (about y): x goes to −z (nose down for positive pitch in a z-up world).
        #expect(maxDiff(SO3(roll: 0, pitch: Double.pi / 2, yaw: 0).act(Vec3(1, 0, 0)), Vec3(0, 0, -1)) < 1e-15)
        // Roll 90° (about x): y goes to z.
        #expect(maxDiff(SO3(roll: Double.pi / 2, pitch: 0, yaw: 0).act(Vec3(0, 1, 0)), Vec3(0, 0, 1)) < 1e-15)
        // Order: yaw is applied last (outermost), so roll then pitch then yaw in the world frame.
        let r = SO3(roll: 0.1, pitch: 0.2, yaw: 0.3)
        let composed = SO3(yaw: 0.3) * SO3(angle: 0.2, axis: Vec3(0, 1, 0)) * SO3(angle: 0.1, axis: Vec3(1, 0, 0))
        #expect(r.angle(to: composed) < 1e-15)
    }

    @Test func rollPitchYawRoundTrip() {
        var g = SeededRandom(seed: 51)
        for _ in 0..<300 {
            let roll = Double.random(in: -3.1...3.1, using: &g)
            let pitch = Double.random(in: -1.55...1.55, using: &g)
            let yaw = Double.random(in: -3.1...3.1, using: &g)
            let e = SO3(roll: roll, pitch: pitch, yaw: yaw).rollPitchYaw
            // Conditioning of roll/yaw worsens as 1/cos(pitch) (≤ 50 here): 1e-12 still leaves margin.
            #expect(abs(e.roll - roll) < 1e-12 && abs(e.pitch - pitch) < 1e-12 && abs(e.yaw - yaw) < 1e-12)
            let r = SO3(roll: roll, pitch: pitch, yaw: yaw)
            #expect(abs(r.yaw - yaw) < 1e-12)
            #expect(abs(r.rollPitch.roll - roll) < 1e-12 && abs(r.rollPitch.pitch - pitch) < 1e-12)
        }
    }

    @Test func gimbalLockStillReconstructs() {
        for (roll, yaw) in [(0.0, 0.3), (0.4, -1.0)] {
            let r = SO3(roll: roll, pitch: Double.pi / 2, yaw: yaw)
            let e = r.rollPitchYaw
            #expect(e.roll == 0)
            #expect(abs(e.pitch - Double.pi / 2) < 1e-7) // atan2 near ±π/2 with cp ~ 1e-17: still accurate
            #expect(SO3(roll: e.roll, pitch: e.pitch, yaw: e.yaw).angle(to: r) < 1e-7)
        }
    }

    @Test func yawIsTheHeadingOfTheForwardAxis() {
        // For small roll/pitch, yaw is the heading of body x projected on the horizontal plane.
        let r = SO3(roll: 0.05, pitch: -0.03, yaw: 2.0)
        let f = r.act(Vec3(1, 0, 0))
        #expect(abs(atan2(f.y, f.x) - 2.0) < 1e-12)
    }

    @Test func fromTwoVectorsRandom() {
        var g = SeededRandom(seed: 52)
        for _ in 0..<200 {
            let a = Double.random(in: 0.1...10, using: &g) * randomUnitVector(&g)
            let b = Double.random(in: 0.1...10, using: &g) * randomUnitVector(&g)
            let r = SO3.fromTwoVectors(a, b)
            #expect(maxDiff(r.act(a.normalized), b.normalized) < 1e-12)
            // Minimal: the angle is the angle between the vectors, about the axis a × b.
            let angleAB = atan2(a.cross(b).norm, a.dot(b))
            #expect(abs(r.angle - angleAB) < 1e-12)
            #expect(maxDiff(r.log.normalized, a.cross(b).normalized) < 1e-9)
        }
    }

    @Test func fromTwoVectorsSpecialCases() {
        let a = Vec3(0.3, -0.4, 1.2)
        #expect(SO3.fromTwoVectors(a, 2 * a).angle < 1e-15)
        let opposite = SO3.fromTwoVectors(a, -a)
        #expect(maxDiff(opposite.act(a), -a) < 1e-12)
        #expect(abs(opposite.angle - Double.pi) < 1e-12)
        // Nearly opposite (1e-8 rad off): still maps a onto b.
        let b = SO3(angle: Double.pi - 1e-8, axis: Vec3(1, 0, 0)).act(Vec3(0, 0, 1))
        #expect(maxDiff(SO3.fromTwoVectors(Vec3(0, 0, 1), b).act(Vec3(0, 0, 1)), b) < 1e-12)
        #expect(SO3.fromTwoVectors(.zero, a) == .identity)
        #expect(SO3.fromTwoVectors(a, Vec3(.nan, 0, 0)) == .identity)
    }

    @Test func gravityAlignmentLevelsTheBody() {
        // A body at rest measures specific force f_B = R_W_Bᵀ (0, 0, g). Aligning f_B with +z recovers roll/pitch.
        let truth = SO3(roll: 0.2, pitch: -0.15, yaw: 1.1)
        let f_B = truth.inverse.act(Vec3(0, 0, 9.81))
        let r = SO3.fromTwoVectors(f_B, Vec3(0, 0, 1))
        let rp = r.rollPitch, tp = truth.rollPitch
        // Roll and pitch agree up to the unobservable yaw; compare the gravity direction in the body instead.
        #expect(maxDiff(r.inverse.act(Vec3(0, 0, 1)), truth.inverse.act(Vec3(0, 0, 1))) < 1e-12)
        #expect(abs(rp.roll) > 0 && abs(tp.roll - 0.2) < 1e-12)
    }

    @Test func mat3Helpers() {
        let m = Mat3(rowMajor: [1, 2, 3, 4, 5, 6, 7, 8, 10])
        #expect(abs(m.frobeniusNorm - (1 + 4 + 9 + 16 + 25 + 36 + 49 + 64 + 100.0).squareRoot()) < 1e-14)
        #expect(maxDiff(m.symmetrized, Mat3(rowMajor: [1, 3, 5, 3, 5, 7, 5, 7, 10])) == 0)
        #expect((m * 2) == 2 * m)
        #expect(!m.isRotation())
        #expect(SO3.exp(Vec3(0.3, 0.2, 0.1)).matrix.isRotation(tolerance: 1e-12))
        #expect(!Mat3(diagonal: Vec3(1, 1, -1)).isRotation()) // a reflection
    }
}
