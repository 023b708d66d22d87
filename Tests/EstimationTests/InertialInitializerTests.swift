import Foundation
import Geometry
import Sensors
import Testing
import TestSupport
@testable import Estimation

/// `InertialInitializer`: static initialisation at rest, dynamic in motion, neither when the image and the
/// IMU disagree or the dynamic one is turned off.
@Suite struct InertialInitializerTests {
    static let imuCalibration = IMUCalibration(noise: .euroc, rate_hz: 200)

    /// Feeds the frames of `trajectory` (with their IMU) one by one, the disparity of each frame given by
    /// `disparity(t)`; returns the first frame index and result that initialise.
    static func firstInitialization(_ trajectory: EstimationTrajectory, duration: Double,
                                    configuration: EstimatorConfiguration = EstimatorConfiguration(),
                                    disparity: (Double) -> Double?) -> (frame: Int, result: InertialInitializer.Result, workerCPU_ns: UInt64)? {
        let scene = VIOEstimatorTests.sparse
        let imu = trajectory.imuSamples(duration: duration, rate_hz: 200, gyroBias: Vec3(0.003, -0.002, 0.001),
                                        noise: .euroc, seed: 5)
        let frames = scene.frames(trajectory: trajectory, duration: duration, pixelNoise: 0.5, seed: 6)
        var initializer = InertialInitializer(configuration: configuration, cameras: [scene.camera], imu: imuCalibration)
        var buffer = IMUBuffer()
        var k = 0
        for (i, f) in frames.enumerated() {
            while k < imu.count, imu[k].t_ns <= f.t_ns { _ = buffer.append(imu[k]); k += 1 }
            let frame = FeatureFrame(t_ns: f.t_ns, observations: f.observations.map {
                FeatureObservation(id: $0.id, camera: $0.camera, normalized: $0.normalized, rightNormalized: $0.rightNormalized)
            })
            if let r = initializer.tryInitialize(frame: frame, disparity_px: disparity(Double(f.t_ns) * 1e-9), buffer: buffer,
                                                 gyroBiasPrior: .zero) {
                return (i, r, initializer.lastWorkerCPU_ns)
            }
        }
        return nil
    }

    /// At rest with a still image: static, as soon as the 1 s rest window is full (frame 20 at 20 Hz), with
    /// the gyro bias from the mean rate and the tilt from gravity.
    @Test func initialisesStaticallyAtRest() throws {
        let traj = EstimationTrajectory(restDuration: 3, rampDuration: 1)
        let found = try #require(Self.firstInitialization(traj, duration: 2.5) { _ in 0.1 })
        #expect(found.result.method == .staticRest)
        #expect(found.frame >= 19 && found.frame <= 22, "frame \(found.frame)")
        #expect((found.result.state.gyroBias_B - Vec3(0.003, -0.002, 0.001)).norm < 2e-3)
        let truth = traj.state(at: Double(found.result.state.t_ns) * 1e-9)
        let up = found.result.state.R_W_B.inverse.act(Vec3(0, 0, 1)), upTrue = truth.R_W_B.inverse.act(Vec3(0, 0, 1))
        #expect(acos(min(1, up.dot(upTrue))) < 0.01)
    }

    /// In motion with a moving image: dynamic, once the window spans 90 % of its 1.5 s (frame 27 or later);
    /// with `dynamicInitialization` off the same run does not initialise at all (the control).
    @Test func initialisesDynamicallyInMotionOnlyWhenEnabled() throws {
        let traj = EstimationTrajectory(restDuration: 0, rampDuration: 0.3)
        let found = try #require(Self.firstInitialization(traj, duration: 3) { _ in 8 })
        #expect(found.result.method == .dynamicAlignment)
        #expect(found.frame >= 26 && found.frame <= 40, "frame \(found.frame)")
        let truth = traj.state(at: Double(found.result.state.t_ns) * 1e-9)
        let vBody = found.result.state.R_W_B.inverse.act(found.result.state.v_W), vTrue = truth.R_W_B.inverse.act(truth.v_W)
        #expect((vBody - vTrue).norm < 0.15)
        var off = EstimatorConfiguration()
        off.initializer.dynamicInitialization = false
        #expect(Self.firstInitialization(traj, duration: 3, configuration: off) { _ in 8 } == nil)
    }

    /// A dynamic try on the worker thread (`dynamicInitializationOnWorker`) aligns the same windows as in place, and the
    /// next frame takes its outcome: it initialises one frame after the run in place, with the very same state (at its
    /// window's last frame, where the estimator applies it). The worker's CPU time comes with the outcome.
    @Test func aTryOnTheWorkerIsTakenByTheNextFrame() throws {
        let traj = EstimationTrajectory(restDuration: 0, rampDuration: 0.3)
        let here = try #require(Self.firstInitialization(traj, duration: 3) { _ in 8 })
        #expect(here.result.method == .dynamicAlignment)
        #expect(here.workerCPU_ns == 0)
        var onWorker = EstimatorConfiguration()
        onWorker.initializer.dynamicInitializationOnWorker = true
        let later = try #require(Self.firstInitialization(traj, duration: 3, configuration: onWorker) { _ in 8 })
        #expect(later.result.method == .dynamicAlignment)
        #expect(later.frame == here.frame + 1, "frame \(later.frame) against \(here.frame)")
        #expect(later.result.state.t_ns == here.result.state.t_ns)
        #expect(later.result.state.p_W == here.result.state.p_W && later.result.state.v_W == here.result.state.v_W)
        #expect(later.result.state.R_W_B.log == here.result.state.R_W_B.log)
        #expect(later.result.state.gyroBias_B == here.result.state.gyroBias_B)
        #expect(later.result.covariance == here.result.covariance)
        #expect(later.workerCPU_ns > 0)
    }

    /// Image and IMU disagree: a moving IMU with a still image (static test fails, dynamic is not tried), and
    /// a resting IMU with a moving image (static is not tried; the alignment has no motion to work with).
    @Test func initialisesNeitherWayWhenImageAndImuDisagree() {
        let moving = EstimationTrajectory(restDuration: 0, rampDuration: 0.3)
        #expect(Self.firstInitialization(moving, duration: 3) { _ in 0.1 } == nil)
        let resting = EstimationTrajectory(restDuration: 4, rampDuration: 1)
        #expect(Self.firstInitialization(resting, duration: 3) { _ in 8 } == nil)
    }
}
