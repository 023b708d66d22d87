import Foundation
import Geometry
import Sensors
import Simulation
import Testing
import TestSupport

/// The analytic fixture must be self-consistent, or every estimator test built on it is meaningless.
@Suite struct EstimationFixtureTests {
    @Test func derivativesMatchFiniteDifferences() {
        let traj = EstimationTrajectory(restDuration: 1, rampDuration: 1.5)
        let h = 1e-5
        for t in stride(from: 0.5, through: 9.0, by: 0.37) {
            let s0 = traj.state(at: t - h), s1 = traj.state(at: t + h), s = traj.state(at: t)
            let v = (s1.p_W - s0.p_W) / (2 * h)
            let a = (s1.v_W - s0.v_W) / (2 * h)
            let w = (s0.R_W_B.inverse * s1.R_W_B).log / (2 * h)
            // Central differences with h = 1e-5 s are accurate to ~1e-8 here; 1e-6 catches any sign/term error.
            #expect((v - s.v_W).norm < 1e-6, "velocity at t=\(t)")
            #expect((a - s.a_W).norm < 1e-5, "acceleration at t=\(t)")
            #expect((w - s.omega_B).norm < 1e-6, "angular rate at t=\(t)")
        }
    }

    @Test func restPhaseIsStill() {
        let traj = EstimationTrajectory(restDuration: 2, rampDuration: 1)
        let imu = IMUSynthesizer.exactSample(traj.state(at: 1.0), t_ns: 1_000_000_000)
        #expect(imu.gyro_B.norm == 0)
        // At rest the accelerometer reads gravity reversed: |f| = g.
        #expect(abs(imu.accel_B.norm - 9.81) < 1e-12)
        #expect(traj.state(at: 1.5).v_W.norm == 0)
    }

    @Test func sceneGivesEnoughVisibleFeatures() {
        let scene = EstimationScene()
        let frames = scene.frames(trajectory: EstimationTrajectory(), duration: 10, rate_hz: 5)
        let counts = frames.map { $0.observations.count }
        // The estimator tests assume a textured scene: ≥ 50 features in every frame.
        #expect(counts.min()! >= 50, "visible counts \(counts)")
    }
}
