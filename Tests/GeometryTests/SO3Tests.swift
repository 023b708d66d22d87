import Testing
import Foundation
@testable import Geometry

/// Tolerances: all quantities are O(1); double-precision rotation code is accurate to a few 1e-16, so 1e-12
/// leaves a wide margin while any convention error (sign, transpose, half angle) shows up at O(0.1–1).
struct SO3Tests {
    @Test func expMatchesRodriguesAndActMatchesMatrix() {
        var g = SeededRandom(seed: 1)
        for _ in 0..<200 {
            let phi = randomRotationVector(&g)
            let r = SO3.exp(phi)
            #expect(maxDiff(r.matrix, rodrigues(phi)) < 1e-12)
            let v = 3 * randomUnitVector(&g)
            #expect(maxDiff(r.act(v), r.matrix * v) < 1e-12)
            #expect(r.matrix.isRotation(tolerance: 1e-12))
        }
    }

    @Test func knownRotationAboutZ() {
        // 90° about z takes x to y (right-handed).
        let r = SO3.exp(Vec3(0, 0, Double.pi / 2))
        #expect(maxDiff(r.act(Vec3(1, 0, 0)), Vec3(0, 1, 0)) < 1e-15)
        #expect(maxDiff(r.act(Vec3(0, 1, 0)), Vec3(-1, 0, 0)) < 1e-15)
    }

    @Test(arguments: [0.0, 1e-14, 1e-10, 1e-8, 1e-7, 1e-4, 0.5, 2.0, 3.0])
    func logExpRoundTrip(angle: Double) {
        var g = SeededRandom(seed: UInt64(angle * 1e6) + 11)
        for _ in 0..<20 {
            let phi = angle * randomUnitVector(&g)
            let back = SO3.exp(phi).log
            // Relative accuracy holds all the way to 0: the small-angle branches are exact to O(θ³).
            #expect(maxDiff(back, phi) <= 1e-14 * max(angle, 1e-300) + 1e-300)
        }
    }

    @Test(arguments: [1e-3, 1e-6, 1e-9])
    func logExpRoundTripNearPi(gap: Double) {
        var g = SeededRandom(seed: 5)
        for _ in 0..<20 {
            let phi = (Double.pi - gap) * randomUnitVector(&g)
            // cos(θ/2) ≈ gap/2 is the only small quantity; atan2 keeps the angle to ~1e-15 absolute.
            #expect(maxDiff(SO3.exp(phi).log, phi) < 1e-12)
        }
    }

    @Test func logOfHalfTurnHasAngleExactlyPi() {
        let r = SO3.exp(Vec3(Double.pi, 0, 0))
        let phi = r.log
        #expect(abs(phi.norm - Double.pi) < 1e-15)
        #expect(abs(abs(phi.x) - Double.pi) < 1e-15)
    }

    @Test func logWrapsAnglesAbovePi() {
        // exp(θ a) with θ in (π, 2π) is the rotation by 2π − θ about −a.
        let a = Vec3(0, 0.6, 0.8)
        let phi = SO3.exp(4.0 * a).log
        #expect(maxDiff(phi, -(2 * Double.pi - 4.0) * a) < 1e-12)
    }

    @Test func compositionAndInverse() {
        var g = SeededRandom(seed: 2)
        for _ in 0..<100 {
            let a = SO3.exp(randomRotationVector(&g)), b = SO3.exp(randomRotationVector(&g))
            #expect(maxDiff((a * b).matrix, a.matrix * b.matrix) < 1e-12)
            #expect((a * a.inverse).angle < 1e-12)
            #expect(maxDiff(a.inverse.matrix, a.matrix.transposed) < 1e-12)
            let v = randomUnitVector(&g)
            #expect(maxDiff((a * b).act(v), a.act(b.act(v))) < 1e-12)
            #expect(maxDiff(a.inverse.act(a.act(v)), v) < 1e-12)
            // exp(−φ) is the inverse of exp(φ).
            let phi = randomRotationVector(&g)
            #expect((SO3.exp(phi) * SO3.exp(-phi)).angle < 1e-12)
        }
    }

    @Test func quaternionMatrixRoundTripCoversAllShepperdBranches() {
        // One rotation per branch of Quaternion(rotationMatrix:): trace > 0, and trace ≤ 0 with m00, m11 or m22
        // the largest diagonal element (half turns and near half turns about mostly-x, -y, -z axes).
        let cases: [Vec3] = [
            Vec3(0.1, -0.2, 0.3),
            Double.pi * Vec3(1, 0, 0), Double.pi * Vec3(0, 1, 0), Double.pi * Vec3(0, 0, 1),
            3.0 * Vec3(0.9, 0.3, 0.1).normalized, 3.0 * Vec3(0.2, -0.95, 0.1).normalized,
            3.0 * Vec3(-0.1, 0.2, 0.97).normalized, 2.5 * Vec3(1, 1, 1).normalized,
        ]
        var branches = Set<Int>()
        for phi in cases {
            let q = SO3.exp(phi).quaternion
            let m = q.matrix
            let tr = m.trace
            branches.insert(tr > 0 ? 0 : (m[0, 0] > m[1, 1] && m[0, 0] > m[2, 2] ? 1 : (m[1, 1] > m[2, 2] ? 2 : 3)))
            let back = Quaternion(rotationMatrix: m)
            #expect(rotationDistance(back, q) < 1e-12)
            #expect(back.w >= 0)
            #expect(abs(back.norm - 1) < 1e-15)
            #expect(maxDiff(SO3(matrix: m).matrix, m) < 1e-12)
        }
        #expect(branches == [0, 1, 2, 3])
        // Random rotations too.
        var g = SeededRandom(seed: 3)
        for _ in 0..<200 {
            let q = SO3.exp(randomRotationVector(&g, angles: 0...Double.pi)).quaternion
            #expect(rotationDistance(Quaternion(rotationMatrix: q.matrix), q) < 1e-12)
        }
    }

    @Test func quaternionActMatchesSandwichProduct() {
        var g = SeededRandom(seed: 4)
        for _ in 0..<50 {
            let q = SO3.exp(randomRotationVector(&g)).quaternion
            let v = randomUnitVector(&g)
            let sandwich = q * Quaternion(scalar: 0, vector: v) * q.conjugate
            #expect(maxDiff(q.act(v), sandwich.vector) < 1e-12)
            #expect(abs(sandwich.w) < 1e-12)
        }
    }

    @Test func angleToOtherRotation() {
        let a = SO3(angle: 0.3, axis: Vec3(0, 0, 1)), b = SO3(angle: 1.0, axis: Vec3(0, 0, 1))
        #expect(abs(a.angle(to: b) - 0.7) < 1e-14)
    }
}
