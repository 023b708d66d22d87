import Foundation
import Geometry
import Sensors

/// Options of the IMU simulation.
public struct IMUSimulationOptions: Equatable, Sendable {
    /// Noise densities and bias random walks (default: EuRoC ADIS16448).
    public var noise: IMUNoiseModel = .euroc
    /// Sample rate, Hz (default 200).
    public var rate_hz: Double = 200
    /// Add white noise to the measurements (σ = density · √rate per sample).
    public var whiteNoise: Bool = true
    /// Add biases: a non-zero initial bias drawn from the seed (or the fixed one below), evolving as a random walk
    /// (σ = random-walk density / √rate per sample) unless `biasRandomWalk` is false.
    public var biases: Bool = true
    /// Let the biases walk (default true); false keeps them at their initial values for the whole run
    /// (constant biases, as estimator tests want them to check bias estimation against a known value).
    public var biasRandomWalk: Bool = true
    /// Fixed initial gyro bias (rad/s) instead of a drawn one.
    public var initialGyroBias_B: Vec3?
    /// Fixed initial accelerometer bias (m/s²) instead of a drawn one.
    public var initialAccelBias_B: Vec3?

    /// Options with the given values; the defaults are EuRoC's noise at 200 Hz with drawn, walking biases.
    public init(noise: IMUNoiseModel = .euroc, rate_hz: Double = 200, whiteNoise: Bool = true, biases: Bool = true,
                biasRandomWalk: Bool = true, initialGyroBias_B: Vec3? = nil, initialAccelBias_B: Vec3? = nil) {
        self.noise = noise; self.rate_hz = rate_hz; self.whiteNoise = whiteNoise; self.biases = biases
        self.biasRandomWalk = biasRandomWalk
        self.initialGyroBias_B = initialGyroBias_B; self.initialAccelBias_B = initialAccelBias_B
    }

    /// Perfect measurements: no noise, no biases.
    public static let perfect = IMUSimulationOptions(whiteNoise: false, biases: false)
}

/// Simulated IMU measurements with the matching ground-truth states (one per sample).
public struct SimulatedIMU: Equatable, Sendable {
    /// Measurements at the IMU rate.
    public var samples: [IMUSample]
    /// Ground truth at the same time stamps: pose, velocity and the true biases in force.
    public var groundTruth: [GroundTruthState]
}

/// Synthesises IMU measurements as the exact analytic derivatives of a trajectory.
///
/// `gyro_B = omega_B + b_g + n_g`, `accel_B = R_W_Bᵀ (a_W − g_W) + b_a + n_a` with `g_W = (0, 0, −9.81)`.
/// White noise σ = density · √rate; the bias walks by σ = randomWalk / √rate per sample. Initial biases,
/// unless given, are drawn per seed: each gyro axis ±[0.01, 0.08] rad/s, each accel axis ±[0.05, 0.10] m/s².
public enum IMUSynthesizer {
    /// Samples at `t_k = k / rate` for `0 ≤ t_k ≤ seconds`, time-stamped `startTime_ns + round(t_k · 1e9)`.
    public static func synthesize(trajectory: any Trajectory, seconds: Double, startTime_ns: TimestampNs,
                                  options: IMUSimulationOptions = IMUSimulationOptions(), seed: UInt64) -> SimulatedIMU {
        let rate = options.rate_hz
        let count = Int((seconds * rate + 1e-9).rounded(.down)) + 1
        var biasRng = SimRandom(seed: seed, stream: 0x1B1A5)
        func draw(_ lo: Double, _ hi: Double) -> Vec3 {
            Vec3((0..<3).map { _ -> Double in
                let m = biasRng.uniform(lo, hi)
                return biasRng.uniform() < 0.5 ? -m : m
            })
        }
        let drawnG = draw(0.01, 0.08), drawnA = draw(0.05, 0.10)
        var bg = options.biases ? (options.initialGyroBias_B ?? drawnG) : .zero
        var ba = options.biases ? (options.initialAccelBias_B ?? drawnA) : .zero
        var rng = SimRandom(seed: seed, stream: 0x1B0)
        let sqrtRate = rate.squareRoot()
        let sgW = options.noise.gyroscopeNoiseDensity * sqrtRate, saW = options.noise.accelerometerNoiseDensity * sqrtRate
        let sgB = options.noise.gyroscopeRandomWalk / sqrtRate, saB = options.noise.accelerometerRandomWalk / sqrtRate
        func gauss3() -> Vec3 { Vec3(rng.gaussian(), rng.gaussian(), rng.gaussian()) }
        var samples: [IMUSample] = [], truth: [GroundTruthState] = []
        samples.reserveCapacity(count); truth.reserveCapacity(count)
        for k in 0..<count {
            let dt_ns = Time.nanoseconds(Double(k) / rate)
            let t = Time.seconds(dt_ns)
            let s = trajectory.state(at: t)
            let exact = exactSample(s, t_ns: startTime_ns + dt_ns)
            var gyro = exact.gyro_B + bg
            var accel = exact.accel_B + ba
            if options.whiteNoise {
                gyro += sgW * gauss3()
                accel += saW * gauss3()
            }
            samples.append(IMUSample(t_ns: startTime_ns + dt_ns, gyro_B: gyro, accel_B: accel))
            truth.append(GroundTruthState(t_ns: startTime_ns + dt_ns, T_W_B: s.T_W_B, v_W: s.v_W,
                                          gyroBias_B: bg, accelBias_B: ba))
            if options.biases && options.biasRandomWalk {
                bg += sgB * gauss3()
                ba += saB * gauss3()
            }
        }
        return SimulatedIMU(samples: samples, groundTruth: truth)
    }

    /// The exact measurement of a state, stamped `t_ns`: no noise, no bias.
    /// `gyro_B = omega_B`, `accel_B = R_W_Bᵀ (a_W − g_W)` (at rest the accelerometer reads +9.81 m/s² up).
    public static func exactSample(_ state: TrajectoryState, t_ns: TimestampNs) -> IMUSample {
        IMUSample(t_ns: t_ns, gyro_B: state.omega_B, accel_B: state.T_W_B.rotation.inverse.act(state.a_W - Scene.gravity_W))
    }
}
