import Foundation
import Geometry
import Sensors
import Testing
import TestSupport
@testable import Estimation

/// `IMUNoiseEstimator` measures the IMU's white-noise densities at the frame interval's time scale from the
/// raw samples, rejecting the motion itself.
@Suite struct ImuNoiseEstimatorTests {
    /// A moving trajectory's exact IMU at 200 Hz, with white noise of the given densities.
    static func samples(seconds: Double, noise: IMUNoiseModel?, seed: UInt64 = 3) -> [IMUSample] {
        EstimationTrajectory(restDuration: 0.5, rampDuration: 1)
            .imuSamples(duration: seconds, rate_hz: 200, gyroBias: Vec3(0.01, -0.02, 0.03), accelBias: Vec3(0.1, 0, -0.1),
                        noise: noise, seed: seed)
    }

    static func vibration(gyro: Double, accel: Double) -> IMUNoiseModel {
        IMUNoiseModel(gyroscopeNoiseDensity: gyro, gyroscopeRandomWalk: 0, accelerometerNoiseDensity: accel, accelerometerRandomWalk: 0)
    }

    @Test("white noise on a moving body: densities recovered within 15 % on every axis")
    func recoversWhiteNoiseDuringMotion() throws {
        // EuRoC's MAV in flight: about 0.005 rad/s/√Hz and 0.04 m/s²/√Hz over 50 ms (30× and 20× the datasheet).
        for (gyro, accel) in [(0.005, 0.04), (1.7e-4, 2e-3)] {
            var e = IMUNoiseEstimator(frameInterval: 0.05, imuRate_hz: 200)
            for s in Self.samples(seconds: 20, noise: Self.vibration(gyro: gyro, accel: accel)) { e.add(s) }
            let m = try #require(e.measured)
            for i in 0..<3 {
                #expect(abs(m.gyro_B[i] / gyro - 1) < 0.15, "gyro axis \(i): \(m.gyro_B[i]) for \(gyro)")
                #expect(abs(m.accel_B[i] / accel - 1) < 0.15, "accel axis \(i): \(m.accel_B[i]) for \(accel)")
            }
        }
    }

    @Test("smooth motion alone is not noise: the noise-free trajectory measures under a tenth of a datasheet density")
    func motionIsNotCountedAsNoise() throws {
        var e = IMUNoiseEstimator(frameInterval: 0.05, imuRate_hz: 200)
        for s in Self.samples(seconds: 20, noise: nil) { e.add(s) }
        let m = try #require(e.measured)
        #expect(m.gyro_B.max() < 1.7e-5, "gyro \(m.gyro_B)")
        #expect(m.accel_B.max() < 2e-4, "accel \(m.accel_B)")
    }

    @Test("no estimate before a second of samples; the floor is used until then and never undercut")
    func floorAndWarmUp() throws {
        var e = IMUNoiseEstimator(frameInterval: 0.05, imuRate_hz: 200)
        let samples = Self.samples(seconds: 5, noise: Self.vibration(gyro: 1e-5, accel: 1e-4))
        for s in samples.prefix(150) { e.add(s) }
        #expect(e.measured == nil)
        #expect(e.effectiveNoise(floor: .euroc) == AxisNoise(.euroc))
        for s in samples.dropFirst(150) { e.add(s) }
        #expect(e.measured != nil)
        // Measured below the datasheet: the datasheet stays.
        #expect(e.effectiveNoise(floor: .euroc) == AxisNoise(.euroc))
    }

    @Test("the accelerometer's random walk scales with its measured density's excess, on the noisiest axis, only when asked")
    func accelRandomWalkFollowsTheMeasuredDensity() throws {
        let floor = IMUNoiseModel.euroc
        // Vibration 20× the datasheet's accelerometer density (EuRoC's MAV in flight measures 15–25×).
        var e = IMUNoiseEstimator(frameInterval: 0.05, imuRate_hz: 200)
        for s in Self.samples(seconds: 20, noise: Self.vibration(gyro: 5e-3, accel: 20 * floor.accelerometerNoiseDensity)) { e.add(s) }
        let m = try #require(e.measured)
        let plain = e.effectiveNoise(floor: floor), scaled = e.effectiveNoise(floor: floor, scaleAccelRandomWalk: true)
        #expect(plain.accelRandomWalk == floor.accelerometerRandomWalk && plain.gyroRandomWalk == floor.gyroscopeRandomWalk)
        let factor = m.accel_B.max() / floor.accelerometerNoiseDensity
        #expect(abs(factor / 20 - 1) < 0.15, "measured excess \(factor)")
        #expect(abs(scaled.accelRandomWalk / (floor.accelerometerRandomWalk * factor) - 1) < 1e-12)
        // The rest is untouched: the densities, and the gyroscope's random walk.
        #expect(scaled.gyroRandomWalk == plain.gyroRandomWalk && scaled.accelDensity_B == plain.accelDensity_B
                && scaled.gyroDensity_B == plain.gyroDensity_B)
        // A clean IMU (measured under the datasheet) keeps the datasheet's random walk: the factor never falls below 1.
        var clean = IMUNoiseEstimator(frameInterval: 0.05, imuRate_hz: 200)
        for s in Self.samples(seconds: 20, noise: Self.vibration(gyro: 1e-5, accel: 1e-4)) { clean.add(s) }
        #expect(clean.effectiveNoise(floor: floor, scaleAccelRandomWalk: true).accelRandomWalk == floor.accelerometerRandomWalk)
    }

    @Test("a signal step across a gap, or a shock inside the blocks, is not taken for noise")
    func gapRestartsBlocks() throws {
        func measure(_ samples: [IMUSample]) throws -> Vec3 {
            var e = IMUNoiseEstimator(frameInterval: 0.05, imuRate_hz: 200)
            for s in samples { e.add(s) }
            return try #require(e.measured).accel_B
        }
        let plain = Self.samples(seconds: 10, noise: nil)
        // A 2 m/s² accelerometer step at 5 s (a bias jump), once after a 1 s gap and once (the control) without one.
        var stepped = plain
        for i in stepped.indices where stepped[i].t_ns >= 5_000_000_000 { stepped[i].accel_B += Vec3(2, 0, 0) }
        let gapped = stepped.filter { $0.t_ns <= 4_000_000_000 || $0.t_ns >= 5_000_000_000 }
        let reference = try measure(plain), withGap = try measure(gapped), withoutGap = try measure(stepped)
        #expect(withGap.x <= reference.x * 1.2, "with the gap \(withGap), no step \(reference)")
        // Without the gap the step falls inside a few blocks: the few differences it makes stand far above the median and are left out.
        #expect(withoutGap.x <= reference.x * 1.2, "a step inside the blocks \(withoutGap)")
    }

    @Test("per-axis accelerometer noise enters the velocity covariance as R diag(σ²) Rᵀ")
    func perAxisProcessNoise() {
        var prop = IMUPropagator(noise: .euroc, gravity_W: Vec3(0, 0, -9.81))
        var n = AxisNoise(.euroc)
        n.accelDensity_B = Vec3(0.01, 0.02, 0.04)
        prop.noise = n
        let R = SO3.exp(Vec3(0.3, -0.5, 0.8))
        let q = prop.noiseCovariance(dt: 0.005, R_W_B: R)
        let expected = R.matrix * Mat3(diagonal: n.accelDensity_B * n.accelDensity_B * 0.005) * R.matrix.transposed
        for i in 0..<3 {
            for j in 0..<3 {
                #expect(abs(q[ErrorIndex.velocity + i, ErrorIndex.velocity + j] - expected[i, j]) < 1e-15)
            }
            #expect(abs(q[ErrorIndex.theta + i, ErrorIndex.theta + i] - pow(1.6968e-4, 2) * 0.005) < 1e-18)
        }
    }
}
