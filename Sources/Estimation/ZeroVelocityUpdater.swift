import Foundation
import Geometry
import LinearAlgebra
import Sensors

/// Detects standstill from the IMU and applies the zero-velocity (static) update.
///
/// **Detection.** Over the IMU samples of one frame interval, the mean bias-corrected rate and the mean
/// specific force minus the gravity predicted by the current attitude must both be explainable by noise:
/// a χ² test with 6 dof at `1 − zeroVelocity.detectionFalseAlarm`, the per-axis variance of the means being
/// `max(s², σ²·rate)/N` (sample variance floored by the noise model, as in the static initialiser) plus
/// the filter's bias and attitude variances. The caller combines it with the image disparity.
///
/// **Update.** Measurements `v_W = 0` (noise `zeroVelocityNoise`), `mean(ω) = b_g` and
/// `mean(f) = b_a + R̂ᵀ(0, 0, g)` (noise variance `max(s², σ²·rate)/N` per axis), gated by χ² (9 dof) at
/// `zeroVelocity.chi2GateProbability` (95 %).
/// With right orientation error, `∂(Rᵀg)/∂δθ = [R̂ᵀg]×`.
struct ZeroVelocityUpdater {
    var configuration: EstimatorConfiguration
    var imu: IMUCalibration
    private let detectTable: ChiSquareTable
    private let gateTable: ChiSquareTable

    init(configuration: EstimatorConfiguration, imu: IMUCalibration) {
        self.configuration = configuration
        self.imu = imu
        gateTable = ChiSquareTable(probability: configuration.zeroVelocity.chi2GateProbability)
        detectTable = ChiSquareTable(probability: 1 - configuration.zeroVelocity.detectionFalseAlarm)
    }

    struct Statistics {
        var count: Int
        var gyroMean: Vec3, accelMean: Vec3
        /// Variance of the means, per axis.
        var gyroMeanVar: Vec3, accelMeanVar: Vec3
    }

    func statistics(_ samples: ArraySlice<IMUSample>) -> Statistics? {
        guard samples.count >= 2, let f = samples.first, let l = samples.last, l.t_ns > f.t_ns else { return nil }
        let n = Double(samples.count)
        let rate = (n - 1) / (Double(l.t_ns - f.t_ns) * 1e-9)
        let gm = samples.reduce(Vec3.zero) { $0 + $1.gyro_B } / n
        let am = samples.reduce(Vec3.zero) { $0 + $1.accel_B } / n
        var gv = samples.reduce(Vec3.zero) { $0 + ($1.gyro_B - gm) * ($1.gyro_B - gm) } / max(1, n - 1)
        var av = samples.reduce(Vec3.zero) { $0 + ($1.accel_B - am) * ($1.accel_B - am) } / max(1, n - 1)
        let mg = pow(imu.noise.gyroscopeNoiseDensity, 2) * rate, ma = pow(imu.noise.accelerometerNoiseDensity, 2) * rate
        gv = Vec3(max(gv.x, mg), max(gv.y, mg), max(gv.z, mg))
        av = Vec3(max(av.x, ma), max(av.y, ma), max(av.z, ma))
        return Statistics(count: samples.count, gyroMean: gm, accelMean: am, gyroMeanVar: gv / n, accelMeanVar: av / n)
    }

    /// True when the IMU samples are consistent with a body at rest in the current estimate.
    func imuSaysStill(_ stats: Statistics, state: FilterState) -> Bool {
        let s = state.imu
        let gUp = s.R_W_B.inverse.act(Vec3(0, 0, configuration.gravity))
        let eg = stats.gyroMean - s.gyroBias_B
        let ea = stats.accelMean - s.accelBias_B - gUp
        var stat = 0.0
        let tiltVar = configuration.gravity * configuration.gravity
        for i in 0..<3 {
            let vg = stats.gyroMeanVar[i] + state.covariance(ErrorIndex.gyroBias + i, ErrorIndex.gyroBias + i)
            let va = stats.accelMeanVar[i] + state.covariance(ErrorIndex.accelBias + i, ErrorIndex.accelBias + i)
                + tiltVar * state.covariance(ErrorIndex.theta + i, ErrorIndex.theta + i)
            stat += eg[i] * eg[i] / vg + ea[i] * ea[i] / va
        }
        return stat < detectTable.threshold(dof: 6)
    }

    /// Applies the zero-velocity update; returns false (state unchanged) if the gate rejects it.
    func update(state: inout FilterState, stats: Statistics) -> Bool {
        let n = state.dimension
        let s = state.imu
        let gUp = s.R_W_B.inverse.act(Vec3(0, 0, configuration.gravity))
        var H = Matrix(rows: 9, columns: n)
        var r = [Double](repeating: 0, count: 9)
        let skewG = gUp.skew
        for i in 0..<3 {
            let wv = 1 / max(configuration.zeroVelocity.noise, 1e-6)
            H[i, ErrorIndex.velocity + i] = wv
            r[i] = -s.v_W[i] * wv
            let wg = 1 / stats.gyroMeanVar[i].squareRoot()
            H[3 + i, ErrorIndex.gyroBias + i] = wg
            r[3 + i] = (stats.gyroMean[i] - s.gyroBias_B[i]) * wg
            let wa = 1 / stats.accelMeanVar[i].squareRoot()
            H[6 + i, ErrorIndex.accelBias + i] = wa
            for j in 0..<3 { H[6 + i, ErrorIndex.theta + j] = skewG[i, j] * wa }
            r[6 + i] = (stats.accelMean[i] - s.accelBias_B[i] - gUp[i]) * wa
        }
        // Gate: rᵀ (H P Hᵀ + I)⁻¹ r.
        let P = state.covarianceMatrix
        var S = H * P.timesTransposed(H)
        for i in 0..<9 { S[i, i] += 1 }
        guard let x = try? S.choleskySolve(Matrix(columnVector: r)) else { return false }
        var chi = 0.0
        for i in 0..<9 { chi += r[i] * x.elements[i] }
        guard chi < gateTable.threshold(dof: 9) else { return false }
        do { try state.update(H: H, r: r) } catch { return false }
        return true
    }
}
