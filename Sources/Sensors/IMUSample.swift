import Geometry

/// One inertial measurement, in the IMU (body) frame `B`.
public struct IMUSample: Equatable, Sendable {
    /// Time of the sample, nanoseconds.
    public var t_ns: TimestampNs
    /// Angular rate of B relative to the world, measured in B, rad/s (bias and noise included).
    public var gyro_B: Vec3
    /// Specific force (acceleration minus gravity) measured in B, m/s² (bias and noise included).
    public var accel_B: Vec3

    public init(t_ns: TimestampNs, gyro_B: Vec3, accel_B: Vec3) {
        self.t_ns = t_ns; self.gyro_B = gyro_B; self.accel_B = accel_B
    }
}

/// The IMU's continuous-time noise model, as Kalibr / EuRoC `imu0/sensor.yaml` gives it.
public struct IMUNoiseModel: Equatable, Sendable, Codable {
    /// Gyroscope white-noise density, rad/s/√Hz.
    public var gyroscopeNoiseDensity: Double
    /// Gyroscope bias random walk, rad/s²/√Hz.
    public var gyroscopeRandomWalk: Double
    /// Accelerometer white-noise density, m/s²/√Hz.
    public var accelerometerNoiseDensity: Double
    /// Accelerometer bias random walk, m/s³/√Hz.
    public var accelerometerRandomWalk: Double

    public init(gyroscopeNoiseDensity: Double, gyroscopeRandomWalk: Double,
                accelerometerNoiseDensity: Double, accelerometerRandomWalk: Double) {
        self.gyroscopeNoiseDensity = gyroscopeNoiseDensity
        self.gyroscopeRandomWalk = gyroscopeRandomWalk
        self.accelerometerNoiseDensity = accelerometerNoiseDensity
        self.accelerometerRandomWalk = accelerometerRandomWalk
    }

    /// The EuRoC VI-sensor (ADIS16448) values.
    public static let euroc = IMUNoiseModel(gyroscopeNoiseDensity: 1.6968e-04, gyroscopeRandomWalk: 1.9393e-05,
                                            accelerometerNoiseDensity: 2.0000e-3, accelerometerRandomWalk: 3.0000e-3)
}

/// Calibration of the IMU: its noise model, nominal rate and extrinsics.
public struct IMUCalibration: Equatable, Sendable {
    /// Noise densities and random walks.
    public var noise: IMUNoiseModel
    /// Nominal sample rate, Hz.
    public var rate_hz: Double
    /// Pose of the IMU sensor frame S in the body frame B (identity for EuRoC, where B is the IMU).
    public var T_B_S: SE3

    public init(noise: IMUNoiseModel, rate_hz: Double, T_B_S: SE3 = .identity) {
        self.noise = noise; self.rate_hz = rate_hz; self.T_B_S = T_B_S
    }
}
