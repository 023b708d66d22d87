import Foundation
import Geometry
import Sensors
import Testing
import TestSupport
@testable import Estimation

@Suite struct TrackingStateTests {
    @Test func stringFormRoundTrips() {
        let all: [TrackingState] = [.notAvailable, .normal] + TrackingState.Reason.allCases.map { .limited($0) }
        #expect(all.map(\.description) == ["notAvailable", "normal", "limited(initializing)", "limited(excessiveMotion)",
                                            "limited(insufficientFeatures)", "limited(relocalizing)", "limited(sensorGap)"])
        for s in all { #expect(TrackingState(string: s.description) == s) }
        #expect(TrackingState(string: "limited(bogus)") == nil)
        #expect(TrackingState(string: "Normal") == nil)
    }

    static let scene = EstimationScene(density: 1.5)

    func estimator() -> VIOEstimator {
        VIOEstimator(configuration: EstimatorConfiguration(), cameras: [Self.scene.camera],
                     imu: IMUCalibration(noise: .euroc, rate_hz: 200))
    }

    func frame(_ f: EstimationSimFrame, keep: Int = .max) -> FeatureFrame {
        FeatureFrame(t_ns: f.t_ns, observations: f.observations.prefix(keep).map {
            FeatureObservation(id: $0.id, camera: $0.camera, normalized: $0.normalized)
        })
    }

    @Test func transitionsFromNotAvailableToNormalAndInsufficientFeatures() {
        let traj = EstimationTrajectory(restDuration: 2, rampDuration: 1)
        let imu = traj.imuSamples(duration: 5, rate_hz: 200, noise: .euroc, seed: 2)
        let frames = Self.scene.frames(trajectory: traj, duration: 5, seed: 4)
        let vio = estimator()
        // A frame before any IMU data.
        #expect(vio.addFrame(frame(frames[0])).trackingState == .notAvailable)
        var states: [TrackingState] = []
        var k = 0
        for (i, f) in frames.enumerated().dropFirst() {
            while k < imu.count, imu[k].t_ns <= f.t_ns { vio.addIMU(imu[k]); k += 1 }
            // Frames 70–79 (3.5–4 s, moving) keep only 10 features.
            let out = vio.addFrame(frame(f, keep: (70..<80).contains(i) ? 10 : .max))
            #expect(out.T_W_B.translation.isFinite && out.positionStd_m >= 0)
            states.append(out.trackingState)
        }
        // Until the 1 s rest window is complete: initialising.
        #expect(states[0..<15].allSatisfy { $0 == .limited(.initializing) })
        #expect(states[25..<68].allSatisfy { $0 == .normal }, "\(states[25..<68].map(\.description))")
        #expect(states[69..<78].allSatisfy { $0 == .limited(.insufficientFeatures) }, "\(states[69..<78].map(\.description))")
        #expect(states.last == .normal)
    }

    @Test func noRestMeansNoStaticInitialisation() {
        let traj = EstimationTrajectory(restDuration: 0, rampDuration: 0.5)
        let imu = traj.imuSamples(duration: 3, rate_hz: 200, noise: .euroc, seed: 2)
        let frames = Self.scene.frames(trajectory: traj, duration: 3, seed: 4)
        var config = EstimatorConfiguration()
        config.initializer.dynamicInitialization = false
        let vio = VIOEstimator(configuration: config, cameras: [Self.scene.camera],
                               imu: IMUCalibration(noise: .euroc, rate_hz: 200))
        var k = 0
        for f in frames {
            while k < imu.count, imu[k].t_ns <= f.t_ns { vio.addIMU(imu[k]); k += 1 }
            #expect(vio.addFrame(frame(f)).trackingState == .limited(.initializing))
        }
        #expect(!vio.isInitialized)
    }

    @Test func fastRotationIsExcessiveMotion() {
        let traj = EstimationTrajectory(restDuration: 100, motionScale: 0)
        var imu = traj.imuSamples(duration: 3, rate_hz: 200, noise: .euroc, seed: 2)
        let frames = Self.scene.frames(trajectory: traj, duration: 3, seed: 4)
        // After 2 s, the gyro reads 6 rad/s (more than the 4 rad/s the tracker follows).
        for i in imu.indices where imu[i].t_ns > 2_000_000_000 { imu[i].gyro_B = Vec3(0, 0, 6) }
        let vio = estimator()
        var k = 0
        var states: [TimestampNs: TrackingState] = [:]
        for f in frames {
            while k < imu.count, imu[k].t_ns <= f.t_ns { vio.addIMU(imu[k]); k += 1 }
            states[f.t_ns] = vio.addFrame(frame(f)).trackingState
        }
        // Normal just before the spin starts, excessive motion once it has (a missing frame fails too).
        #expect(states[1_900_000_000] == .normal)
        #expect(states[2_100_000_000] == .limited(.excessiveMotion))
    }

    @Test func divergenceResetsAndReportsRelocalizingWithoutNaN() throws {
        let traj = EstimationTrajectory(restDuration: 100, motionScale: 0)
        var imu = traj.imuSamples(duration: 6, rate_hz: 200, noise: .euroc, seed: 2)
        let frames = Self.scene.frames(trajectory: traj, duration: 6, seed: 4)
        // 2.0–2.5 s: a broken accelerometer reading 50 m/s² sideways (speed would exceed 10 m/s).
        for i in imu.indices where imu[i].t_ns > 2_000_000_000 && imu[i].t_ns <= 2_500_000_000 {
            imu[i].accel_B += Vec3(50, 0, 0)
        }
        // One NaN sample, which must be ignored.
        imu[300].gyro_B = Vec3(.nan, 0, 0)
        let vio = estimator()
        var k = 0
        var states: [TrackingState] = []
        for f in frames {
            while k < imu.count, imu[k].t_ns <= f.t_ns { vio.addIMU(imu[k]); k += 1 }
            let out = vio.addFrame(frame(f))
            #expect(out.T_W_B.translation.isFinite && out.v_W.isFinite && out.T_W_C.translation.isFinite)
            states.append(out.trackingState)
        }
        #expect(states.contains(.limited(.relocalizing)))
        // Back at rest, the filter re-initialises and recovers.
        #expect(states.last == .normal, "\(states.suffix(20).map(\.description))")
        let firstReloc = try #require(states.firstIndex(of: .limited(.relocalizing)))
        #expect(firstReloc > 40 && firstReloc < 60)
    }
}

extension TrackingStateTests {
    /// Bad input (NaN coordinates, unknown cameras, negative or NaN disparity, out-of-order frames)
    /// must never crash or put NaN into the outputs.
    @Test func badInputNeverProducesNaN() {
        let traj = EstimationTrajectory(restDuration: 1.5, rampDuration: 0.5)
        let imu = traj.imuSamples(duration: 4, rate_hz: 200, noise: .euroc, seed: 8)
        let frames = Self.scene.frames(trajectory: traj, duration: 4, seed: 9)
        let vio = estimator()
        var k = 0
        var normal = 0
        for (i, f) in frames.enumerated() {
            while k < imu.count, imu[k].t_ns <= f.t_ns { vio.addIMU(imu[k]); k += 1 }
            var ff = frame(f)
            if i % 3 == 0, !ff.observations.isEmpty { ff.observations[0].normalized = Vec2(.nan, 0.1) }
            if i % 4 == 0 { ff.observations.append(FeatureObservation(id: -5, camera: 7, normalized: Vec2(0.1, 0.1))) }
            if i % 5 == 0 { ff.observations.append(FeatureObservation(id: -6, camera: 0, normalized: Vec2(.infinity, 0))) }
            ff.imageDisparity_px = i % 7 == 0 ? .nan : (i % 11 == 0 ? -3 : nil)
            let out = vio.addFrame(ff)
            #expect(out.T_W_B.translation.isFinite && out.v_W.isFinite && out.gyroBias_B.isFinite
                && out.accelBias_B.isFinite && out.T_W_C.translation.isFinite && !out.positionStd_m.isNaN)
            #expect(out.landmarks.allSatisfy { $0.p_W.isFinite })
            if out.trackingState == .normal { normal += 1 }
            // An out-of-order frame returns the previous answer.
            if i == 50 { #expect(vio.addFrame(frame(frames[10])) == out) }
        }
        // The good observations still carry the tracking.
        #expect(normal > 40)
    }
}
