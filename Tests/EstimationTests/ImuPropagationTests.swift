import Foundation
import Geometry
import LinearAlgebra
import Sensors
import Testing
import TestSupport
@testable import Estimation

@Suite struct ImuPropagationTests {
    static let g = 9.81

    func buffer(_ samples: [IMUSample]) -> IMUBuffer {
        var b = IMUBuffer()
        for s in samples { b.append(s) }
        return b
    }

    @Test func exactImuReproducesTrajectory() {
        let traj = EstimationTrajectory(restDuration: 0.5, rampDuration: 1)
        let samples = traj.imuSamples(duration: 10.5, rate_hz: 200)
        let buf = buffer(samples)
        let prop = IMUPropagator(noise: .euroc, gravity_W: Vec3(0, 0, -Self.g))
        let s0 = traj.state(at: 0)
        var state = IMUState(t_ns: 0, R_W_B: s0.R_W_B, p_W: s0.p_W, v_W: s0.v_W)
        var maxPosErr = 0.0, maxRotErr = 0.0
        // Propagate frame by frame (20 Hz), as the estimator does, with the frame time between samples
        // for half of the frames (exercises the interpolation).
        var t: TimestampNs = 0
        while t < 10_000_000_000 {
            t += 50_000_000 + (t % 100_000_000 == 0 ? 2_500_000 : -2_500_000)
            _ = prop.propagate(&state, to: t, buffer: buf)
            let truth = traj.state(at: Double(t) * 1e-9)
            maxPosErr = max(maxPosErr, (state.p_W - truth.p_W).norm)
            maxRotErr = max(maxRotErr, (truth.R_W_B.inverse * state.R_W_B).angle)
        }
        // Requirement: < 1 mm over 10 s at 200 Hz. The integrator error here is dominated by the
        // piecewise-linear reading of the IMU signal, O(Δt²).
        #expect(maxPosErr < 1e-3, "max position error \(maxPosErr) m")
        #expect(maxRotErr < 1e-5, "max rotation error \(maxRotErr) rad")
    }

    /// Position variance of a static IMU from the noise model, integrated analytically:
    /// accel white noise → σ_a² T³/3; gyro white noise tilting gravity → g² σ_g² T⁵/20;
    /// accel bias walk → σ_wa² T⁵/20; gyro bias walk → g² σ_wg² T⁷/252 (horizontal axes only for g terms).
    @Test func staticPositionStdGrowsAsTheNoiseModelSays() {
        let noise = IMUNoiseModel.euroc
        let T = 10.0
        let traj = EstimationTrajectory(motionScale: 0)
        let samples = traj.imuSamples(duration: T, rate_hz: 200)
        let buf = buffer(samples)
        let prop = IMUPropagator(noise: noise, gravity_W: Vec3(0, 0, -Self.g))
        let s0 = traj.state(at: 0)
        var fs = FilterState(imu: IMUState(t_ns: 0, R_W_B: s0.R_W_B, p_W: s0.p_W),
                             diagonalCovariance: [Double](repeating: 0, count: 15))
        fs.augmentClone() // a clone rides along: its cross-covariance must stay consistent
        var imu = fs.imu
        for k in 1...20 {
            let (phi, q) = prop.propagate(&imu, to: Int64(k) * 500_000_000, buffer: buf)
            fs.imu = imu
            fs.propagateCovariance(phi: phi, q: q)
        }
        let sa2 = pow(noise.accelerometerNoiseDensity, 2), sg2 = pow(noise.gyroscopeNoiseDensity, 2)
        let swa2 = pow(noise.accelerometerRandomWalk, 2), swg2 = pow(noise.gyroscopeRandomWalk, 2)
        let g2 = Self.g * Self.g
        let vertical = sa2 * pow(T, 3) / 3 + swa2 * pow(T, 5) / 20
        let horizontal = vertical + g2 * sg2 * pow(T, 5) / 20 + g2 * swg2 * pow(T, 7) / 252
        // Covariance in world axes: P_pp is already in W (additive position error).
        let Ppp = fs.covarianceBlock(ErrorIndex.position, ErrorIndex.position)
        // Discretisation (Δt = 5 ms over 10 s) changes these by ~0.1 %; 1 % catches a wrong Φ or Q term.
        #expect(abs(Ppp[0, 0] / horizontal - 1) < 0.01, "x variance \(Ppp[0, 0]) vs \(horizontal)")
        #expect(abs(Ppp[1, 1] / horizontal - 1) < 0.01, "y variance \(Ppp[1, 1]) vs \(horizontal)")
        #expect(abs(Ppp[2, 2] / vertical - 1) < 0.01, "z variance \(Ppp[2, 2]) vs \(vertical)")
        // The clone's own variance did not change, and the matrix is symmetric PSD.
        let c = fs.cloneIndex(0)
        #expect(fs.covariance(c + 3, c + 3) == 0)
        let P = fs.covarianceMatrix
        #expect(P.isSymmetric(tolerance: 0))
        let eig = try? P.symmetricEigen()
        let minEig = eig?.eigenvalues.min() ?? -1
        #expect(minEig > -1e-12 * (eig?.eigenvalues.max() ?? 1), "min eigenvalue \(minEig)")
    }

    @Test func covarianceStaysSymmetricPSDWhileMoving() throws {
        let traj = EstimationTrajectory(restDuration: 0, rampDuration: 1)
        let buf = buffer(traj.imuSamples(duration: 5, rate_hz: 200))
        let prop = IMUPropagator(noise: .euroc, gravity_W: Vec3(0, 0, -Self.g))
        let s0 = traj.state(at: 0)
        var fs = FilterState(imu: IMUState(t_ns: 0, R_W_B: s0.R_W_B, p_W: s0.p_W, v_W: s0.v_W),
                             diagonalCovariance: [1e-4, 1e-4, 1e-6, 1e-6, 1e-6, 1e-6, 1e-4, 1e-4, 1e-4,
                                                  1e-6, 1e-6, 1e-6, 1e-2, 1e-2, 1e-2])
        var imu = fs.imu
        for k in 1...100 {
            let (phi, q) = prop.propagate(&imu, to: Int64(k) * 50_000_000, buffer: buf)
            fs.imu = imu
            fs.propagateCovariance(phi: phi, q: q)
            if k % 10 == 0 { fs.augmentClone() }
            if fs.clones.count > 4 { fs.marginalizeClone(0) }
        }
        let P = fs.covarianceMatrix
        #expect(P.isSymmetric(tolerance: 0))
        let eig = try P.symmetricEigen()
        // Eigenvalues of a PSD matrix computed in floating point: tiny negatives down to ε·λmax are round-off.
        #expect(eig.eigenvalues.min()! > -1e-12 * eig.eigenvalues.max()!)
    }

    @Test func bufferInterpolatesLinearly() {
        var b = IMUBuffer()
        b.append(IMUSample(t_ns: 0, gyro_B: Vec3(0, 0, 0), accel_B: Vec3(0, 0, 0)))
        b.append(IMUSample(t_ns: 10, gyro_B: Vec3(1, 2, 3), accel_B: Vec3(10, 0, 0)))
        let accepted = b.append(IMUSample(t_ns: 10, gyro_B: .zero, accel_B: .zero))
        #expect(!accepted, "duplicate time must be dropped")
        let s = b.sample(at: 4)!
        #expect(s.gyro_B == Vec3(0.4, 0.8, 1.2) * 1 || (s.gyro_B - Vec3(0.4, 0.8, 1.2)).norm < 1e-15)
        #expect(abs(s.accel_B.x - 4) < 1e-12)
        let k = b.knots(from: 2, to: 12)
        #expect(k.map(\.t_ns) == [2, 10, 12])
    }
}
