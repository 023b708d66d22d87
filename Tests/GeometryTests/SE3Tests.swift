import Testing
import Foundation
@testable import Geometry

/// SE(3) exp/log and group identities. Tolerances as in SO3Tests (1e-12 on O(1) metres/radians).
struct SE3Tests {
    @Test func expKnownAnswerQuarterTurnScrew() {
        // Constant body velocity (1, 0, 0) m/s with yaw rate π/2 rad/s for 1 s: the position is
        // ∫₀¹ (cos(ωt), sin(ωt), 0) dt = (sin ω/ω, (1 − cos ω)/ω, 0) = (2/π, 2/π, 0) (by hand).
        let t = SE3.exp(rho: Vec3(1, 0, 0), phi: Vec3(0, 0, Double.pi / 2))
        #expect(maxDiff(t.translation, Vec3(2 / Double.pi, 2 / Double.pi, 0)) < 1e-15)
        #expect(t.rotation.angle(to: SO3(angle: Double.pi / 2, axis: Vec3(0, 0, 1))) < 1e-15)
        // Pure translation.
        #expect(SE3.exp(rho: Vec3(1, 2, 3), phi: .zero).translation == Vec3(1, 2, 3))
    }

    @Test(arguments: [0.0, 1e-9, 1e-4, 0.7, 2.0, 3.1])
    func expLogRoundTrip(angle: Double) {
        var g = SeededRandom(seed: UInt64(41 + angle * 1000))
        for _ in 0..<20 {
            let rho = 2 * randomUnitVector(&g), phi = angle * randomUnitVector(&g)
            let xi = SE3.exp((rho: rho, phi: phi)).log
            #expect(maxDiff(xi.rho, rho) < 1e-12)
            #expect(maxDiff(xi.phi, phi) < 1e-12)
        }
    }

    @Test func expOfScaledTwistIsAOneParameterGroup() {
        // exp(s ξ) exp(t ξ) = exp((s + t) ξ).
        let rho = Vec3(0.3, -1, 2), phi = Vec3(0.2, 0.4, -0.1)
        let a = SE3.exp(rho: 0.3 * rho, phi: 0.3 * phi) * SE3.exp(rho: 0.5 * rho, phi: 0.5 * phi)
        let b = SE3.exp(rho: 0.8 * rho, phi: 0.8 * phi)
        #expect(maxDiff(a.translation, b.translation) < 1e-12)
        #expect(a.rotation.angle(to: b.rotation) < 1e-12)
    }

    @Test func compositionInverseAndAction() {
        var g = SeededRandom(seed: 42)
        for _ in 0..<50 {
            let a = SE3(rotation: SO3.exp(randomRotationVector(&g)), translation: 5 * randomUnitVector(&g))
            let b = SE3(rotation: SO3.exp(randomRotationVector(&g)), translation: 5 * randomUnitVector(&g))
            let p = 3 * randomUnitVector(&g)
            #expect(maxDiff((a * b).act(p), a.act(b.act(p))) < 1e-12)
            #expect(maxDiff(a.inverse.act(a.act(p)), p) < 1e-12)
            let i = a * a.inverse
            #expect(i.translation.norm < 1e-12 && i.rotation.angle < 1e-12)
            // Row-major 4×4 round trip.
            let back = SE3(rowMajor4x4: a.matrix4x4RowMajor)
            #expect(maxDiff(back.translation, a.translation) < 1e-15 && back.rotation.angle(to: a.rotation) < 1e-12)
        }
    }
}
