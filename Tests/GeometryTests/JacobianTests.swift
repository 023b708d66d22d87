import Testing
import Foundation
@testable import Geometry

/// Jacobians of SO(3) against central finite differences of exp/log.
///
/// Tolerance: central differences with step h = 1e-6 have truncation error O(h²) ≈ 1e-12 and rounding error
/// O(ε/h) ≈ 1e-10 on O(1) entries; 1e-8 is above both and far below any formula error (O(θ²) ≥ 1e-4 here).
struct JacobianTests {
    static let h = 1e-6
    static let tolerance = 1e-8
    static let angles: [Double] = [0, 1e-9, 1e-5, 0.9e-3, 1.1e-3, 0.3, 1.5, 2.8, 3.1]

    /// Column k of the numerical Jacobian of `f` at δ = 0.
    static func numericalJacobian(_ f: (Vec3) -> Vec3) -> Mat3 {
        let basis = [Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)]
        let cols = basis.map { e in (f(h * e) - f(-h * e)) / (2 * h) }
        return Mat3(columns: cols[0], cols[1], cols[2])
    }

    @Test(arguments: angles)
    func rightJacobianMatchesFiniteDifferences(angle: Double) {
        var g = SeededRandom(seed: 21)
        let phi = angle * randomUnitVector(&g)
        // exp(phi + δ) = exp(phi) exp(Jr δ)  ⇒  log(exp(phi)⁻¹ exp(phi + δ)) ≈ Jr δ.
        let r = SO3.exp(phi)
        let numeric = Self.numericalJacobian { d in (r.inverse * SO3.exp(phi + d)).log }
        #expect(maxDiff(numeric, SO3.rightJacobian(phi)) < Self.tolerance)
    }

    @Test(arguments: angles)
    func leftJacobianMatchesFiniteDifferences(angle: Double) {
        var g = SeededRandom(seed: 22)
        let phi = angle * randomUnitVector(&g)
        // exp(phi + δ) = exp(Jl δ) exp(phi)  ⇒  log(exp(phi + δ) exp(phi)⁻¹) ≈ Jl δ.
        let r = SO3.exp(phi)
        let numeric = Self.numericalJacobian { d in (SO3.exp(phi + d) * r.inverse).log }
        #expect(maxDiff(numeric, SO3.leftJacobian(phi)) < Self.tolerance)
    }

    @Test(arguments: angles)
    func inverseJacobiansMatchFiniteDifferencesOfLog(angle: Double) {
        var g = SeededRandom(seed: 23)
        let phi = angle * randomUnitVector(&g)
        let r = SO3.exp(phi)
        // log(exp(phi) exp(δ)) ≈ phi + Jr⁻¹ δ and log(exp(δ) exp(phi)) ≈ phi + Jl⁻¹ δ.
        let numericR = Self.numericalJacobian { d in (r * SO3.exp(d)).log }
        let numericL = Self.numericalJacobian { d in (SO3.exp(d) * r).log }
        #expect(maxDiff(numericR, SO3.rightJacobianInverse(phi)) < Self.tolerance)
        #expect(maxDiff(numericL, SO3.leftJacobianInverse(phi)) < Self.tolerance)
    }

    @Test func inversesAndIdentities() {
        var g = SeededRandom(seed: 24)
        for _ in 0..<100 {
            let phi = randomRotationVector(&g, angles: 0...3.1)
            let jr = SO3.rightJacobian(phi), jl = SO3.leftJacobian(phi)
            #expect(maxDiff(SO3.rightJacobianInverse(phi) * jr, .identity) < 1e-12)
            #expect(maxDiff(SO3.leftJacobianInverse(phi) * jl, .identity) < 1e-12)
            #expect(maxDiff(jr, SO3.leftJacobian(-phi)) < 1e-15)
            // Jl = R Jr, and Jr φ = φ (the rotation axis is fixed).
            #expect(maxDiff(jl, SO3.exp(phi).matrix * jr) < 1e-12)
            #expect(maxDiff(jr * phi, phi) < 1e-12)
        }
    }

    @Test func seriesAndClosedFormAgreeAtTheSwitch() {
        // The series is used for θ² < 1e-6. Take the adjacent doubles on either side of the switch so the
        // inputs differ by ~1e-19 rad: any difference is then the two code paths' error (expected ~1e-16).
        var below = (1e-6).squareRoot(), above = below
        while below * below >= 1e-6 { below = below.nextDown }
        while above * above < 1e-6 { above = above.nextUp }
        #expect(above - below < 1e-18)
        let pb = Vec3(below, 0, 0), pa = Vec3(above, 0, 0)
        #expect(maxDiff(SO3.rightJacobianInverse(pb), SO3.rightJacobianInverse(pa)) < 1e-15)
        #expect(maxDiff(SO3.leftJacobian(pb), SO3.leftJacobian(pa)) < 1e-15)
        let cb = SO3.jacobianCoefficients(below * below), ca = SO3.jacobianCoefficients(above * above)
        // Coefficients themselves: a ≈ 1/2 to ~1e-16 relative; b (closed form has θ − sin θ cancellation:
        // relative error ~6ε/θ² ≈ 1e-9) is only multiplied by θ² in the Jacobian, hence the looser bound.
        #expect(abs(cb.a - ca.a) < 1e-15)
        #expect(abs(cb.b - ca.b) < 1e-8)
    }

    @Test func jacobianAtZeroIsIdentity() {
        #expect(SO3.rightJacobian(.zero) == .identity)
        #expect(SO3.leftJacobianInverse(.zero) == .identity)
    }
}
