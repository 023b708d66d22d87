@testable import Estimation
import Geometry
import Testing

/// `FilterState.inflateGauge` (the drift across an IMU gap): the added covariance must lie exactly along the
/// unobservable directions — a yaw of the whole trajectory about the vertical through the current position, and a
/// translation of it — or the visual updates after the gap would "correct" it wrongly.
@Suite("Gauge inflation across an IMU gap")
struct GaugeInflationTests {
    /// A state with one clone at a different pose than the inertial state.
    static func state() -> FilterState {
        let imu = IMUState(t_ns: 0, R_W_B: SO3(roll: 0.2, pitch: -0.1, yaw: 0.7), p_W: Vec3(1, 2, 0.5), v_W: Vec3(0.5, -0.3, 0.1))
        var f = FilterState(imu: imu, diagonalCovariance: [Double](repeating: 1e-4, count: 15))
        f.augmentClone(t_ns: 0)
        f.imu.R_W_B = SO3(roll: -0.1, pitch: 0.3, yaw: -1.2)
        f.imu.p_W = Vec3(-0.5, 1, 1.2)
        f.imu.v_W = Vec3(0.8, 0.2, -0.1)
        return f
    }

    /// The error state of moving every pose of `f` by `move` (world → world), to first order: `[δθ, δp, δv, 0, 0,
    /// clone δθ, δp]` with the right attitude error `Log(R̂ᵀ R)`.
    static func errorState(_ f: FilterState, rotation Rz: SO3, about pivot: Vec3, translation t: Vec3) -> [Double] {
        var dx = [Double](repeating: 0, count: f.dimension)
        func put(_ i: Int, _ v: Vec3) { for k in 0..<3 { dx[i + k] = v[k] } }
        func moved(_ p: Vec3) -> Vec3 { pivot + Rz.act(p - pivot) + t }
        put(ErrorIndex.theta, (f.imu.R_W_B.inverse * Rz * f.imu.R_W_B).log)
        put(ErrorIndex.position, moved(f.imu.p_W) - f.imu.p_W)
        put(ErrorIndex.velocity, Rz.act(f.imu.v_W) - f.imu.v_W)
        for (i, c) in f.clones.enumerated() {
            put(f.cloneIndex(i), (c.R_W_B.inverse * Rz * c.R_W_B).log)
            put(f.cloneIndex(i) + 3, moved(c.p_W) - c.p_W)
        }
        return dx
    }

    @Test("the added covariance is σ_ψ² j_ψ j_ψᵀ + σ_t² Σ j_t j_tᵀ, with j the error of a real yaw or translation of the whole state")
    func alongTheGaugeOnly() {
        let f0 = Self.state()
        let eps = 1e-6
        let yaw = Self.errorState(f0, rotation: SO3(yaw: eps), about: f0.imu.p_W, translation: .zero).map { $0 / eps }
        let shifts = (0..<3).map { axis -> [Double] in
            var t = Vec3.zero; t[axis] = eps
            return Self.errorState(f0, rotation: .identity, about: f0.imu.p_W, translation: t).map { $0 / eps }
        }
        var f = f0
        f.inflateGauge(yaw_rad: 0.1, position_m: 0.2)
        let n = f.dimension
        var worst = 0.0
        for i in 0..<n {
            for j in 0..<n {
                var expected = 0.01 * yaw[i] * yaw[j]
                for s in shifts { expected += 0.04 * s[i] * s[j] }
                worst = max(worst, abs(f.covariance(i, j) - f0.covariance(i, j) - expected))
            }
        }
        #expect(worst < 1e-6, "largest deviation \(worst)")
        // The inertial state's own position gets only the translation (the yaw pivots about it) …
        #expect(abs(f.covariance(ErrorIndex.position, ErrorIndex.position) - f0.covariance(ErrorIndex.position, ErrorIndex.position) - 0.04) < 1e-9)
        // … and its position σ grows by about the translation's 0.2 m.
        #expect(f.positionStd > f0.positionStd + 0.15)
    }

    @Test("zero drift leaves the covariance unchanged")
    func zeroIsNoOp() {
        var f = Self.state()
        let before = f.covarianceMatrix.elements
        f.inflateGauge(yaw_rad: 0, position_m: 0)
        #expect(f.covarianceMatrix.elements == before)
    }
}
