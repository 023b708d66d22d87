import Foundation
import Geometry
import Sensors

/// The initial inertial state found at rest, and its error-state covariance diagonal blocks.
struct StaticInitialization {
    /// The state at the end of the rest window: gravity-aligned orientation with yaw 0, zero
    /// position and velocity, gyro bias = mean gyro, accel bias 0.
    var state: IMUState
    /// Initial 15×15 error-state covariance (row-major `Mat15`).
    var covariance: Mat15
    /// The test statistic and its threshold (for diagnostics).
    var statistic: Double, threshold: Double
}

/// Detects a rest period in the IMU stream and initialises orientation and gyro bias from it.
///
/// **Rest test.** The last `staticWindow` seconds are split into `M = staticSubWindows` equal parts;
/// at rest, the part means of gyro and accel agree up to their noise. With `s²` the per-axis sample
/// variance within the parts (floored at the noise model's `σ²·rate`, so a perfect sensor passes), the
/// statistic `Σ_parts Σ_axes (m_j − m̄)² n_j / s²` is χ²-distributed with `6(M − 1)` degrees of freedom;
/// the window is at rest when it is below the `1 − staticTestFalseAlarm` quantile. The threshold comes
/// from the distribution, not from a per-dataset tuning; vibration (rotors, engines) raises `s²` and is
/// tolerated, while real motion shifts the part means and is detected. Two plausibility checks
/// follow: `| |ā| − g |` must be explainable by the accelerometer bias prior (5σ), and the mean rotation
/// rate by a gyro bias (`maxGyroBias`); a device turning steadily would otherwise pass.
struct StaticInitializer {
    var configuration: EstimatorConfiguration
    var imu: IMUCalibration
    /// The largest gyro bias a MEMS gyro plausibly has, rad/s (datasheets: ≤ 0.2 rad/s).
    var maxGyroBias: Double = 0.2
    private let table: ChiSquareTable

    init(configuration: EstimatorConfiguration, imu: IMUCalibration) {
        self.configuration = configuration
        self.imu = imu
        table = ChiSquareTable(probability: 1 - configuration.initializer.staticTestFalseAlarm)
    }

    /// Tries to initialise from the samples of the window ending at `t_ns`. Returns `nil` when the
    /// window is not complete or the device is not at rest.
    func initialize(samples all: [IMUSample], endingAt t_ns: TimestampNs) -> StaticInitialization? {
        let window = Time.nanoseconds(configuration.initializer.staticWindow)
        let start = t_ns - window
        let samples = all.filter { $0.t_ns > start && $0.t_ns <= t_ns }
        let m = max(2, configuration.initializer.staticSubWindows)
        // The window must be covered: first sample near its start and enough samples overall.
        guard let first = samples.first, samples.count >= 2 * m, Double(first.t_ns - start) < 0.1 * Double(window)
        else { return nil }
        let rate = Double(samples.count) / configuration.initializer.staticWindow
        let per = samples.count / m
        var gyroMeans: [Vec3] = [], accelMeans: [Vec3] = []
        var gyroVar = Vec3.zero, accelVar = Vec3.zero
        for j in 0..<m {
            let part = samples[(j * per)..<((j + 1) * per)]
            let n = Double(part.count)
            let gm = part.reduce(Vec3.zero) { $0 + $1.gyro_B } / n
            let am = part.reduce(Vec3.zero) { $0 + $1.accel_B } / n
            gyroMeans.append(gm); accelMeans.append(am)
            gyroVar += part.reduce(Vec3.zero) { $0 + ($1.gyro_B - gm) * ($1.gyro_B - gm) } / (n - 1)
            accelVar += part.reduce(Vec3.zero) { $0 + ($1.accel_B - am) * ($1.accel_B - am) } / (n - 1)
        }
        gyroVar /= Double(m); accelVar /= Double(m)
        let modelGyroVar = pow(imu.noise.gyroscopeNoiseDensity, 2) * rate
        let modelAccelVar = pow(imu.noise.accelerometerNoiseDensity, 2) * rate
        let sg2 = Vec3(max(gyroVar.x, modelGyroVar), max(gyroVar.y, modelGyroVar), max(gyroVar.z, modelGyroVar))
        let sa2 = Vec3(max(accelVar.x, modelAccelVar), max(accelVar.y, modelAccelVar), max(accelVar.z, modelAccelVar))
        let gMean = gyroMeans.reduce(Vec3.zero, +) / Double(m)
        let aMean = accelMeans.reduce(Vec3.zero, +) / Double(m)
        var stat = 0.0
        let n = Double(per)
        for j in 0..<m {
            let dg = gyroMeans[j] - gMean, da = accelMeans[j] - aMean
            stat += ((dg * dg * n) / sg2).sum() + ((da * da * n) / sa2).sum()
        }
        let threshold = table.threshold(dof: 6 * (m - 1))
        guard stat < threshold else { return nil }
        guard abs(aMean.norm - configuration.gravity) < 5 * configuration.initializer.initialAccelBiasStd * 3.0.squareRoot(),
              gMean.norm < maxGyroBias else { return nil }

        // Orientation with yaw 0 from the gravity direction: f_B = R_W_Bᵀ (0, 0, g).
        let R_W_B = gravityAlignedRotation(specificForce: aMean)
        let state = IMUState(t_ns: t_ns, R_W_B: R_W_B, gyroBias_B: gMean)

        // Covariance. Tilt: the unknown accel bias dominates (σ_ba / g rad). Yaw and position are the
        // gauge (unobservable): small fixed values. Orientation error is in the body frame, so the
        // world-frame tilt/yaw covariance is rotated: Σ_B = Rᵀ Σ_W R.
        let tiltStd = max(configuration.initializer.initialAccelBiasStd / configuration.gravity, 1e-3)
        let yawStd = 1e-3
        let R = R_W_B.matrix
        let sigmaW = Mat3(diagonal: Vec3(tiltStd * tiltStd, tiltStd * tiltStd, yawStd * yawStd))
        let sigmaB = R.transposed * sigmaW * R
        var P = Mat15()
        P.setBlock(ErrorIndex.theta, ErrorIndex.theta, sigmaB)
        let total = Double(samples.count)
        let gyroBiasStd = max(3 * (sg2.max() / total).squareRoot(), 1e-4)
        for i in 0..<3 {
            P[ErrorIndex.position + i, ErrorIndex.position + i] = 1e-6
            P[ErrorIndex.velocity + i, ErrorIndex.velocity + i] = pow(configuration.initializer.initialVelocityStd, 2)
            P[ErrorIndex.gyroBias + i, ErrorIndex.gyroBias + i] = gyroBiasStd * gyroBiasStd
            P[ErrorIndex.accelBias + i, ErrorIndex.accelBias + i] = pow(configuration.initializer.initialAccelBiasStd, 2)
        }
        return StaticInitialization(state: state, covariance: P, statistic: stat, threshold: threshold)
    }
}
