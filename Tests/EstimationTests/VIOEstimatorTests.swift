import Foundation
import Geometry
import Sensors
import Testing
import TestSupport
@testable import Estimation

@Suite struct VIOEstimatorTests {
    static let scene = EstimationScene()

    func makeEstimator(_ config: EstimatorConfiguration = EstimatorConfiguration(), stereo: Bool = false) -> VIOEstimator {
        let cams = stereo ? [Self.scene.camera, Self.scene.rightCamera] : [Self.scene.camera]
        return VIOEstimator(configuration: config, cameras: cams, imu: ImuCalibration(noise: .euroc, rateHz: 200))
    }

    @Test func tracksSimulatedMotionWithNoisyData() throws {
        let traj = EstimationTrajectory(restDuration: 2, rampDuration: 1.5)
        let duration = 22.0
        let imu = traj.imuSamples(duration: duration, rateHz: 200, gyroBias: Vec3(0.003, -0.002, 0.004),
                                  accelBias: Vec3(0.02, -0.03, 0.01), noise: .euroc, seed: 21)
        let frames = Self.scene.frames(trajectory: traj, duration: duration, pixelNoise: 0.5, seed: 22)
        var config = EstimatorConfiguration()
        config.pixelNoiseStd = 0.5
        let est = makeEstimator(config)
        let clock = ContinuousClock.now
        let run = EstimationRun(estimator: est, trajectory: traj, imu: imu, frames: frames)
        let elapsed = ContinuousClock.now - clock
        let idx = run.initializedIndices
        let errors = run.alignedPositionErrors(idx)
        let rmse = EstimationRun.rmse(errors)
        let accepted = run.diagnostics.map(\.msckfAccepted).reduce(0, +)
        let rejected = run.diagnostics.map(\.msckfRejected).reduce(0, +)
        let failed = run.diagnostics.map(\.msckfFailed).reduce(0, +)
        let zupts = run.diagnostics.filter(\.zeroVelocityUpdate).count
        print("VIO sim: \(idx.count)/\(frames.count) frames initialised, ATE rmse \(rmse) m, max \(errors.max() ?? -1) m, "
            + "accepted \(accepted) rejected \(rejected) failed \(failed), zupts \(zupts), \(elapsed)")
        print("states: \(Dictionary(grouping: run.outputs.map(\.trackingState.description), by: { $0 }).mapValues(\.count))")
        let last = run.outputs.last!
        print("final bias g \(last.gyroBias_B) a \(last.accelBias_B), pos std \(last.positionStd_m)")
        #expect(idx.count > frames.count - 30)
        #expect(rmse < 0.05)
    }
}
