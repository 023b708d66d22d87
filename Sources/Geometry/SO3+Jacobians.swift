import Foundation

extension SO3 {
    /// Coefficients `a = (1 − cos θ)/θ²`, `b = (θ − sin θ)/θ³` shared by the left and right Jacobians,
    /// from `θ² = |phi|²`. Taylor series below θ = 1e-3 (truncation error < θ⁶/40320 ≈ 1e-23).
    static func jacobianCoefficients(_ theta2: Double) -> (a: Double, b: Double) {
        if theta2 < 1e-6 {
            return (0.5 - theta2 / 24 + theta2 * theta2 / 720, 1.0 / 6 - theta2 / 120 + theta2 * theta2 / 5040)
        }
        let theta = theta2.squareRoot()
        let s = sin(theta / 2)
        // 1 − cos θ = 2 sin²(θ/2) has no cancellation.
        return (2 * s * s / theta2, (theta - sin(theta)) / (theta2 * theta))
    }

    /// The coefficient `c = 1/θ² − (1 + cos θ)/(2 θ sin θ)` of `[phi]×²` in both inverse Jacobians
    /// (series below θ = 1e-3; valid for θ < 2π).
    static func inverseJacobianCoefficient(_ theta2: Double) -> Double {
        if theta2 < 1e-6 { return 1.0 / 12 + theta2 / 720 + theta2 * theta2 / 30240 }
        let theta = theta2.squareRoot()
        // (1 + cos θ)/(2 sin θ) = cot(θ/2)/2, which stays finite at θ = π.
        return 1 / theta2 - 1 / (2 * theta * tan(theta / 2))
    }

    /// The right Jacobian of SO(3) at the rotation vector `phi` (radians):
    /// `exp(phi + δ) ≈ exp(phi) · exp(Jr(phi) δ)` for small δ.
    ///
    /// `Jr(phi) = I − (1 − cos θ)/θ² [phi]× + (θ − sin θ)/θ³ [phi]×²`, θ = |phi|; `Jr(phi) = Jl(−phi)`.
    public static func rightJacobian(_ phi: Vec3) -> Mat3 {
        let (a, b) = jacobianCoefficients(phi.squaredNorm)
        let k = phi.skew
        return Mat3.identity - a * k + b * (k * k)
    }

    /// The inverse of `rightJacobian(phi)`: `log(exp(phi) · exp(δ)) ≈ phi + Jr⁻¹(phi) δ`. Valid for |phi| < 2π.
    ///
    /// `Jr⁻¹(phi) = I + ½ [phi]× + (1/θ² − (1 + cos θ)/(2 θ sin θ)) [phi]×²`.
    public static func rightJacobianInverse(_ phi: Vec3) -> Mat3 {
        let c = inverseJacobianCoefficient(phi.squaredNorm)
        let k = phi.skew
        return Mat3.identity + 0.5 * k + c * (k * k)
    }

    /// The left Jacobian of SO(3) at `phi` (radians): `exp(phi + δ) ≈ exp(Jl(phi) δ) · exp(phi)`.
    /// It is also the `V` matrix of the SE(3) exponential (translation = `Jl(phi) rho`).
    ///
    /// `Jl(phi) = I + (1 − cos θ)/θ² [phi]× + (θ − sin θ)/θ³ [phi]×²`.
    public static func leftJacobian(_ phi: Vec3) -> Mat3 {
        let (a, b) = jacobianCoefficients(phi.squaredNorm)
        let k = phi.skew
        return Mat3.identity + a * k + b * (k * k)
    }

    /// The inverse of `leftJacobian(phi)`: `log(exp(δ) · exp(phi)) ≈ phi + Jl⁻¹(phi) δ`. Valid for |phi| < 2π.
    public static func leftJacobianInverse(_ phi: Vec3) -> Mat3 {
        let c = inverseJacobianCoefficient(phi.squaredNorm)
        let k = phi.skew
        return Mat3.identity - 0.5 * k + c * (k * k)
    }
}
