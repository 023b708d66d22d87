import Foundation
import Geometry
import Sensors

/// Measures the white-noise level an IMU really has, at the time scale the filter integrates over, from
/// the raw samples themselves.
///
/// **Why.** A datasheet density (Kalibr's `gyroscope_noise_density`, …) describes the sensor on a bench.
/// On a vehicle the same sensor also measures vibration: on EuRoC's MAV (rotors spinning) the ADIS16448's
/// effective densities over 50 ms are about 30× (gyro) and 20× (accel) its datasheet values. A filter that
/// believes the datasheet trusts the IMU far too much against the camera; on the simulated room with that
/// vibration added the position error grows twenty-fold (docs/ACCURACY.md, "Error budget").
///
/// **How.** The samples are averaged over consecutive blocks of `blockSamples` samples (block length τ,
/// the camera's frame interval: the time over which the filter integrates between updates). For white noise
/// of density `N` the block means have variance `N²/τ`. Motion is removed with the fourth-order difference of
/// consecutive block means, `d = y₀ − 4y₁ + 6y₂ − 4y₃ + y₄`, which cancels any cubic trend (smooth motion) and
/// leaves `Var(d) = 70 N²/τ` for noise; so `N = √(E[d²] τ / 70)` per axis, over the last `windowBlocks`
/// differences (those far above the median, shocks, left out). On the simulator's handheld trajectory (exact datasheet noise) this recovers the gyro density
/// within 1.6× and the accelerometer's within 3× on its most-shaken axis; on injected white noise, within 10 %.
/// A gap in the samples (more than twice their median interval) restarts the blocks.
///
/// Estimates are per axis of the body frame `B` (the sensor's axes, rotated into B). They are not smaller
/// than what the caller's model says: see `effectiveNoise(floor:)`.
public struct IMUNoiseEstimator: Sendable {
    /// Samples averaged into one block.
    public let blockSamples: Int
    /// Number of fourth differences (≈ blocks) the estimate averages over.
    public let windowBlocks: Int
    /// Fewest differences before an estimate is given.
    public let minimumBlocks: Int

    private var gyroSum = Vec3.zero, accelSum = Vec3.zero, count = 0
    private var lastSample: TimestampNs?
    private var samplePeriod_ns: Double = 0
    /// The last five block means (gyro, accel) and their durations.
    private var recent: [(gyro: Vec3, accel: Vec3, seconds: Double)] = []
    /// Ring of the squared fourth differences times their block length τ (gyro, accel), per axis.
    private var ring: [(gyro: Vec3, accel: Vec3)] = []
    private var ringNext = 0
    /// The ring's values per axis (gyro x, y, z, accel x, y, z), each kept sorted as entries come and go, so an
    /// estimate needs no sort: the window changes by one entry per block. NaN values are left out (and counted).
    private var sortedAxes = [[Double]](repeating: [], count: 6)
    private var nanEntries = 0

    /// An estimator with blocks of `blockSamples` samples, averaging `windowBlocks` differences, giving an
    /// estimate once `minimumBlocks` are in.
    public init(blockSamples: Int, windowBlocks: Int = 200, minimumBlocks: Int = 20) {
        precondition(blockSamples >= 1 && windowBlocks >= 1)
        self.blockSamples = blockSamples
        self.windowBlocks = windowBlocks
        self.minimumBlocks = max(1, min(minimumBlocks, windowBlocks))
    }

    /// Blocks of about `frameInterval` seconds for an IMU at `imuRate_hz`.
    public init(frameInterval: Double, imuRate_hz: Double, window_s: Double = 10, minimum_s: Double = 1) {
        let block = max(1, Int((frameInterval * imuRate_hz).rounded()))
        let tau = Double(block) / imuRate_hz
        self.init(blockSamples: block, windowBlocks: max(1, Int((window_s / tau).rounded())),
                  minimumBlocks: max(1, Int((minimum_s / tau).rounded())))
    }

    /// Adds one sample (body frame, bias and noise included). Samples must come in time order; an older
    /// or equal time is ignored, a non-finite value restarts the blocks.
    public mutating func add(_ s: IMUSample) {
        guard s.gyro_B.isFinite, s.accel_B.isFinite else { restartBlocks(); return }
        if let last = lastSample {
            guard s.t_ns > last else { return }
            let dt = Double(s.t_ns - last)
            if samplePeriod_ns > 0, dt > 2 * samplePeriod_ns {
                restartBlocks()
            } else {
                samplePeriod_ns = samplePeriod_ns == 0 ? dt : 0.99 * samplePeriod_ns + 0.01 * dt
            }
        }
        lastSample = s.t_ns
        gyroSum += s.gyro_B; accelSum += s.accel_B; count += 1
        guard count == blockSamples else { return }
        let n = Double(count)
        // The block spans `count` sample periods (each sample stands for one period).
        let seconds = samplePeriod_ns > 0 ? n * samplePeriod_ns * 1e-9 : 0
        recent.append((gyroSum / n, accelSum / n, seconds))
        gyroSum = .zero; accelSum = .zero; count = 0
        if recent.count > 5 { recent.removeFirst() }
        guard recent.count == 5, seconds > 0 else { return }
        let c = [1.0, -4, 6, -4, 1]
        var dg = Vec3.zero, da = Vec3.zero
        for k in 0..<5 { dg += c[k] * recent[k].gyro; da += c[k] * recent[k].accel }
        push((dg * dg, da * da, recent.map(\.seconds).reduce(0, +) / 5))
    }

    /// The measured densities per body axis (gyro rad/s/√Hz, accel m/s²/√Hz), or nil before enough blocks.
    /// The mean of the squared differences, leaving out those above 50× their median: a short fault or shock (a few
    /// blocks) does not inflate the estimate for the whole window, while vibration's heavy tails (which a median
    /// alone would underrate) stay in.
    public var measured: (gyro_B: Vec3, accel_B: Vec3)? {
        guard ring.count >= minimumBlocks else { return nil }
        guard nanEntries == 0 else { return measuredBySorting }
        // The same sums as `measuredBySorting`, over the same sorted values in the same order.
        func robustMean(_ sorted: [Double]) -> Double {
            let limit = 50 * sorted[sorted.count / 2]
            var sum = 0.0, kept = 0
            while kept < sorted.count, sorted[kept] <= limit { sum += sorted[kept]; kept += 1 }
            return kept == 0 ? 0 : sum / Double(kept)
        }
        let g = Vec3(robustMean(sortedAxes[0]), robustMean(sortedAxes[1]), robustMean(sortedAxes[2]))
        let a = Vec3(robustMean(sortedAxes[3]), robustMean(sortedAxes[4]), robustMean(sortedAxes[5]))
        return (sqrtVec(g / 70), sqrtVec(a / 70))
    }

    /// `measured` computed by sorting the whole window per axis (the definition; used when a value is NaN).
    var measuredBySorting: (gyro_B: Vec3, accel_B: Vec3)? {
        guard ring.count >= minimumBlocks else { return nil }
        func robustMean(_ value: (Int) -> Double) -> Double {
            let v = (0..<ring.count).map(value)
            let sorted = v.sorted()
            let limit = 50 * sorted[sorted.count / 2]
            let kept = sorted.prefix { $0 <= limit }
            return kept.isEmpty ? 0 : kept.reduce(0, +) / Double(kept.count)
        }
        var g = Vec3.zero, a = Vec3.zero
        for axis in 0..<3 {
            g[axis] = robustMean { ring[$0].gyro[axis] }
            a[axis] = robustMean { ring[$0].accel[axis] }
        }
        // Each entry is d²·τ; N² = mean(d²·τ) / 70.
        return (sqrtVec(g / 70), sqrtVec(a / 70))
    }

    /// Densities to use: the measured ones, never below `floor`'s (a datasheet or calibration); the floor's
    /// own values until there is a measurement. The gyroscope's random walk is the floor's. With
    /// `scaleAccelRandomWalk` the accelerometer's random walk is the floor's times the factor by which its
    /// measured density exceeds the floor's on its noisiest axis (at least 1), else the floor's.
    ///
    /// Why the accelerometer's random walk follows its noise: a datasheet's random walk, like its density, is the
    /// sensor still on a bench. On a vehicle the accelerometer's slow error is larger by about the same factor as
    /// its white noise: on EuRoC's MAV the real ADIS16448 disagrees with the flight by 0.02–0.03 m/s² at 0.1–5 Hz,
    /// ten times its bias instability, while its density is measured 15–25× the datasheet's (vibration, and its
    /// rectification as the thrust changes). A filter that keeps the bench's random walk holds the bias still
    /// and takes that error as motion, which in mono is the scale (docs/ACCURACY.md, "The bias random walk"). The
    /// estimator applies it in mono only, after a warm-up (`StateOptions.adaptiveAccelRandomWalk`).
    public func effectiveNoise(floor: IMUNoiseModel, scaleAccelRandomWalk: Bool = false) -> AxisNoise {
        var out = AxisNoise(floor)
        if let m = measured {
            out.gyroDensity_B = pointwiseMax(out.gyroDensity_B, m.gyro_B)
            out.accelDensity_B = pointwiseMax(out.accelDensity_B, m.accel_B)
            if scaleAccelRandomWalk, floor.accelerometerNoiseDensity > 0 {
                let a = out.accelDensity_B
                out.accelRandomWalk *= max(1, max(a.x, a.y, a.z) / floor.accelerometerNoiseDensity)
            }
        }
        return out
    }

    private mutating func restartBlocks() {
        gyroSum = .zero; accelSum = .zero; count = 0; recent.removeAll()
    }

    private mutating func push(_ d: (gyro: Vec3, accel: Vec3, tau: Double)) {
        let weighted = (gyro: d.gyro * d.tau, accel: d.accel * d.tau)
        if ring.count < windowBlocks {
            ring.append(weighted)
        } else {
            updateSorted(ring[ringNext], insert: false)
            ring[ringNext] = weighted
            ringNext = (ringNext + 1) % windowBlocks
        }
        updateSorted(weighted, insert: true)
    }

    /// Inserts an entry's values into (or removes them from) `sortedAxes`.
    private mutating func updateSorted(_ entry: (gyro: Vec3, accel: Vec3), insert: Bool) {
        let values = [entry.gyro.x, entry.gyro.y, entry.gyro.z, entry.accel.x, entry.accel.y, entry.accel.z]
        if values.contains(where: \.isNaN) { nanEntries += insert ? 1 : -1 }
        for (axis, v) in values.enumerated() where !v.isNaN {
            // First index whose value is not below v.
            var lo = 0, hi = sortedAxes[axis].count
            while lo < hi {
                let mid = (lo + hi) / 2
                if sortedAxes[axis][mid] < v { lo = mid + 1 } else { hi = mid }
            }
            if insert { sortedAxes[axis].insert(v, at: lo) } else { sortedAxes[axis].remove(at: lo) }
        }
    }

    private func sqrtVec(_ v: Vec3) -> Vec3 {
        Vec3(max(v.x, 0).squareRoot(), max(v.y, 0).squareRoot(), max(v.z, 0).squareRoot())
    }
}

/// An IMU noise model with a white-noise density per body axis (the random walks stay isotropic).
public struct AxisNoise: Equatable, Sendable {
    /// Gyroscope white-noise density per body axis, rad/s/√Hz.
    public var gyroDensity_B: Vec3
    /// Accelerometer white-noise density per body axis, m/s²/√Hz.
    public var accelDensity_B: Vec3
    /// Gyroscope bias random walk, rad/s²/√Hz.
    public var gyroRandomWalk: Double
    /// Accelerometer bias random walk, m/s³/√Hz.
    public var accelRandomWalk: Double

    /// The isotropic model `m` on every axis.
    public init(_ m: IMUNoiseModel) {
        gyroDensity_B = Vec3(repeating: m.gyroscopeNoiseDensity)
        accelDensity_B = Vec3(repeating: m.accelerometerNoiseDensity)
        gyroRandomWalk = m.gyroscopeRandomWalk
        accelRandomWalk = m.accelerometerRandomWalk
    }
}
