import Testing
import Foundation
@testable import Geometry

/// Slerp for quaternions and SO3, and SE3 interpolation. Tolerance 1e-12 on O(1) quantities (see SO3Tests).
struct InterpolationTests {
    @Test func slerpEndpointsAndMidpoint() {
        var g = SeededRandom(seed: 31)
        for _ in 0..<50 {
            let a = SO3.exp(randomRotationVector(&g)), b = SO3.exp(randomRotationVector(&g))
            #expect(SO3.slerp(a, b, 0).angle(to: a) < 1e-12)
            #expect(SO3.slerp(a, b, 1).angle(to: b) < 1e-12)
            let mid = SO3.slerp(a, b, 0.5)
            // The midpoint is equidistant and halves the angle.
            #expect(abs(mid.angle(to: a) - mid.angle(to: b)) < 1e-12)
            #expect(abs(mid.angle(to: a) - 0.5 * a.angle(to: b)) < 1e-12)
            // Quaternion slerp gives the same rotation.
            let qMid = Quaternion.slerp(a.quaternion, b.quaternion, 0.5)
            #expect(rotationDistance(qMid, mid.quaternion) < 1e-12)
        }
    }

    @Test func slerpHasConstantAngularRateAboutAFixedAxis() {
        let a = SO3(angle: 0.2, axis: Vec3(1, 0, 0))
        let b = a * SO3.exp(Vec3(0, 1.2, 0.9)) // relative rotation of 1.5 rad
        var previous = a
        for k in 1...10 {
            let t = Double(k) / 10
            let r = SO3.slerp(a, b, t)
            #expect(abs(a.angle(to: r) - 1.5 * t) < 1e-12)
            // Each step is the same relative rotation a⁻¹-frame increment exp(0.1 · (0, 1.2, 0.9)).
            #expect(maxDiff((previous.inverse * r).log, Vec3(0, 0.12, 0.09)) < 1e-12)
            let q = Quaternion.slerp(a.quaternion, b.quaternion, t)
            #expect(rotationDistance(q, r.quaternion) < 1e-12)
            previous = r
        }
    }

    @Test func quaternionSlerpTakesTheShortArc() {
        let a = SO3(angle: 0.1, axis: Vec3(0, 0, 1)).quaternion
        let b = SO3(angle: 0.5, axis: Vec3(0, 0, 1)).quaternion
        let bFlipped = Quaternion(w: -b.w, x: -b.x, y: -b.y, z: -b.z)
        let mid = Quaternion.slerp(a, bFlipped, 0.5)
        #expect(abs(SO3(mid).angle(to: SO3(angle: 0.3, axis: Vec3(0, 0, 1)))) < 1e-12)
        // Nearly equal inputs use the normalised-lerp path and still interpolate.
        let c = SO3(angle: 0.1 + 1e-9, axis: Vec3(0, 0, 1)).quaternion
        let m = Quaternion.slerp(a, c, 0.5)
        #expect(abs(SO3(m).log.z - (0.1 + 0.5e-9)) < 1e-14)
    }

    @Test func se3InterpolateSlerpsRotationAndLerpsTranslation() {
        let a = SE3(rotation: SO3(angle: 0.0, axis: Vec3(0, 0, 1)), translation: Vec3(1, 2, 3))
        let b = SE3(rotation: SO3(angle: 1.0, axis: Vec3(0, 0, 1)), translation: Vec3(3, 2, -1))
        let mid = SE3.interpolate(a, b, 0.5)
        #expect(maxDiff(mid.translation, Vec3(2, 2, 1)) < 1e-15)
        #expect(abs(mid.rotation.angle(to: SO3(angle: 0.5, axis: Vec3(0, 0, 1)))) < 1e-12)
        #expect(SE3.interpolate(a, b, 0).rotation.angle(to: a.rotation) < 1e-12)
        #expect(maxDiff(SE3.interpolate(a, b, 1).translation, b.translation) < 1e-15)
    }
}
