import Foundation
import Geometry
import LinearAlgebra
import Sensors
import Testing
import TestSupport
@testable import Estimation

@Suite struct VIOEstimatorTests {
    /// About 130 features per frame (a typical frontend budget).
    static let scene = EstimationScene()
    /// About 65 features per frame: cheaper for the debug-build tests that check one behaviour each.
    static let sparse = EstimationScene(density: 1.5)

    func makeEstimator(_ config: EstimatorConfiguration = EstimatorConfiguration(), stereo: Bool = false) -> VIOEstimator {
        // Both scenes share the same rig.
        let cams = stereo ? [Self.scene.camera, Self.scene.rightCamera] : [Self.scene.camera]
        return VIOEstimator(configuration: config, cameras: cams, imu: IMUCalibration(noise: .euroc, rate_hz: 200))
    }

    func summary(_ name: String, _ run: EstimationRun) -> String {
        let idx = run.initializedIndices
        let errors = run.alignedPositionErrors(idx)
        let d = run.diagnostics
        return "\(name): \(idx.count)/\(run.outputs.count) frames initialised, ATE rmse \(EstimationRun.rmse(errors)) m, "
            + "max \(errors.max() ?? -1) m; features accepted \(d.map(\.msckfAccepted).reduce(0, +)) "
            + "gated \(d.map(\.msckfRejected).reduce(0, +)) untriangulated \(d.map(\.msckfFailed).reduce(0, +)); "
            + "ZUPT frames \(d.filter(\.zeroVelocityUpdate).count); \(run.estimatorSeconds / Double(run.outputs.count) * 1e3) ms/frame CPU"
    }

    /// Requirement: rest then 20 s of motion with IMU noise/bias and 0.5 px pixel noise: ATE well under
    /// 5 cm, and the error within the filter's own 3σ most of the time (consistency).
    @Test func tracksNoisyMotionConsistently() throws {
        let traj = EstimationTrajectory(restDuration: 2, rampDuration: 1.5)
        let duration = 22.0
        let gyroBias = Vec3(0.003, -0.002, 0.004)
        let imu = traj.imuSamples(duration: duration, rate_hz: 200, gyroBias: gyroBias,
                                  accelBias: Vec3(0.02, -0.03, 0.01), noise: .euroc, seed: 21)
        // The sparse scene (~65 features per frame) keeps this 22 s run to a few seconds in a debug build.
        let frames = Self.sparse.frames(trajectory: traj, duration: duration, pixelNoise: 0.5, seed: 22)
        var config = EstimatorConfiguration()
        config.updater.pixelNoiseStd = 0.5
        let run = EstimationRun(estimator: makeEstimator(config), trajectory: traj, imu: imu, frames: frames)
        print(summary("noisy mono", run))
        let idx = run.initializedIndices
        // Initialised once the 1 s rest window is complete (frame 19 or 20, depending on the first
        // sample's offset), never lost afterwards.
        let first = try #require(idx.first)
        #expect(first <= 20 && idx.count == frames.count - first)
        #expect(idx.allSatisfy { run.outputs[$0].trackingState == .normal })
        // ATE after position+yaw alignment; 0.5 px at f = 460 over 4–6 m depth gives a few mm per frame.
        let errors = run.alignedPositionErrors(idx)
        #expect(EstimationRun.rmse(errors) < 0.02, "well under 5 cm")
        // Consistency: error in the frame fixed at initialisation (true pose at init ↔ estimate at init,
        // yaw and origin being the gauge) against the reported 1-σ position std.
        let i0 = idx[0]
        let yawAlign = SO3(angle: run.truths[i0].R_W_B.yaw - run.outputs[i0].T_W_B.rotation.yaw,
                           axis: Vec3(0, 0, 1))
        let offset = run.truths[i0].p_W - yawAlign.act(run.outputs[i0].T_W_B.translation)
        var within = 0
        for i in idx {
            let e = (yawAlign.act(run.outputs[i].T_W_B.translation) + offset - run.truths[i].p_W).norm
            // positionStd_m is the largest axis σ; |e| of a 3-D Gaussian exceeds 3σ_max with p < 3 %.
            if e < 3 * run.outputs[i].positionStd_m { within += 1 }
        }
        let share = Double(within) / Double(idx.count)
        print("noisy mono: error within 3σ in \(share * 100) % of frames")
        #expect(share > 0.9)
        // Zero-velocity updates happen only while the body truly rests (the first 2 s).
        let zuptFrames = run.diagnostics.indices.filter { run.diagnostics[$0].zeroVelocityUpdate }
        #expect(!zuptFrames.isEmpty && zuptFrames.allSatisfy { run.truths[$0].v_W.norm == 0 })
        // The gyro bias is observable in motion: estimated to better than 1e-3 rad/s.
        #expect((run.outputs.last!.gyroBias_B - gyroBias).norm < 1e-3)
    }

    /// The first-estimate-Jacobian option keeps the accuracy and the consistency of the default filter.
    @Test func firstEstimateJacobiansKeepAccuracy() {
        let traj = EstimationTrajectory(restDuration: 1.5, rampDuration: 1)
        let duration = 12.0
        let imu = traj.imuSamples(duration: duration, rate_hz: 200, gyroBias: Vec3(0.002, 0.001, -0.002),
                                  accelBias: Vec3(0.02, 0.01, -0.02), noise: .euroc, seed: 81)
        let frames = Self.sparse.frames(trajectory: traj, duration: duration, pixelNoise: 0.5, seed: 82)
        var config = EstimatorConfiguration()
        config.updater.pixelNoiseStd = 0.5
        config.state.firstEstimateJacobians = true
        let run = EstimationRun(estimator: makeEstimator(config), trajectory: traj, imu: imu, frames: frames)
        print(summary("FEJ", run))
        let idx = run.initializedIndices
        #expect(EstimationRun.rmse(run.alignedPositionErrors(idx)) < 0.02)
        #expect(idx.filter { run.outputs[$0].trackingState == .normal }.count > idx.count - 3)
    }

    /// Exact IMU and exact observations: the only errors are linearisation and integration.
    @Test func exactDataGivesMillimetreAccuracy() {
        let traj = EstimationTrajectory(restDuration: 1.5, rampDuration: 1)
        let duration = 10.0
        let imu = traj.imuSamples(duration: duration, rate_hz: 200)
        let frames = Self.sparse.frames(trajectory: traj, duration: duration, seed: 5)
        var config = EstimatorConfiguration()
        config.updater.pixelNoiseStd = 0.2
        let run = EstimationRun(estimator: makeEstimator(config), trajectory: traj, imu: imu, frames: frames)
        print(summary("exact mono", run))
        let errors = run.alignedPositionErrors(run.initializedIndices)
        #expect(run.initializedIndices.count > frames.count - 25)
        // Exact data: anything above a few mm means a modelling error (Jacobian, frame, timing).
        #expect(EstimationRun.rmse(errors) < 0.005)
    }

    /// Requirement: zero-velocity updates keep the drift under 1 cm over 5 s at rest.
    @Test func zeroVelocityUpdateStopsDriftAtRest() {
        let traj = EstimationTrajectory(restDuration: 100, motionScale: 0)
        let duration = 7.0
        let imu = traj.imuSamples(duration: duration, rate_hz: 200, gyroBias: Vec3(0.002, 0.001, -0.003),
                                  accelBias: Vec3(0.03, 0.02, -0.02), noise: .euroc, seed: 31)
        let frames = Self.sparse.frames(trajectory: traj, duration: duration, pixelNoise: 0.5, seed: 32)
        func drift(_ zupt: Bool) -> (Double, Int) {
            var config = EstimatorConfiguration()
            config.zeroVelocity.enabled = zupt
            let run = EstimationRun(estimator: makeEstimator(config), trajectory: traj, imu: imu, frames: frames)
            print(summary(zupt ? "rest with ZUPT" : "rest without ZUPT", run))
            // Frames 40 and 140: t = 2 s and 7 s.
            return ((run.outputs[140].T_W_B.translation - run.outputs[40].T_W_B.translation).norm,
                    run.diagnostics.filter(\.zeroVelocityUpdate).count)
        }
        let (withZupt, zuptFrames) = drift(true)
        let (without, _) = drift(false)
        print("drift over 5 s at rest: \(withZupt) m with ZUPT, \(without) m without")
        #expect(withZupt < 0.01)
        #expect(zuptFrames > 100)
        // Without ZUPT the features have no parallax and the IMU alone drifts further.
        #expect(without > withZupt)
    }

    /// Requirement: 5 % of observations replaced by random pixels; the gate must keep them out.
    @Test func gatingRejectsOutliers() {
        let traj = EstimationTrajectory(restDuration: 1.5, rampDuration: 1)
        let duration = 10.0
        let imu = traj.imuSamples(duration: duration, rate_hz: 200, noise: .euroc, seed: 41)
        let clean = Self.sparse.frames(trajectory: traj, duration: duration, pixelNoise: 0.5, seed: 42)
        let dirty = Self.sparse.frames(trajectory: traj, duration: duration, pixelNoise: 0.5, outlierRate: 0.05, seed: 42)
        var config = EstimatorConfiguration()
        config.updater.pixelNoiseStd = 0.5
        let runClean = EstimationRun(estimator: makeEstimator(config), trajectory: traj, imu: imu, frames: clean)
        let runDirty = EstimationRun(estimator: makeEstimator(config), trajectory: traj, imu: imu, frames: dirty)
        print(summary("clean", runClean))
        print(summary("5 % outliers", runDirty))
        // Outliers are caught as single observations by the robust triangulation (the rest of the track
        // is kept) or, if they survive it, by the χ² gate. Clean data loses almost nothing.
        let droppedClean = runClean.diagnostics.map(\.droppedObservations).reduce(0, +)
        let droppedDirty = runDirty.diagnostics.map(\.droppedObservations).reduce(0, +)
        let rejectedClean = runClean.diagnostics.map { $0.msckfRejected + $0.msckfFailed }.reduce(0, +)
        let rejectedDirty = runDirty.diagnostics.map { $0.msckfRejected + $0.msckfFailed }.reduce(0, +)
        let usedObservations = runDirty.diagnostics.map(\.msckfAccepted).reduce(0, +) * 8 // ≈ observations per track
        print("dropped observations: clean \(droppedClean), outliers \(droppedDirty); rejected features \(rejectedClean) vs \(rejectedDirty)")
        #expect(droppedClean * 50 < droppedDirty)
        // About 5 % of the used observations are outliers; most must be caught.
        #expect(Double(droppedDirty) > 0.02 * Double(usedObservations))
        #expect(rejectedDirty < 2 * rejectedClean + 20)
        let ateClean = EstimationRun.rmse(runClean.alignedPositionErrors(runClean.initializedIndices))
        let ateDirty = EstimationRun.rmse(runDirty.alignedPositionErrors(runDirty.initializedIndices))
        // With the outliers rejected the accuracy stays in the clean run's class (< 2× and < 2 cm).
        #expect(ateDirty < 0.02 && ateDirty < 2 * ateClean + 0.002)
        #expect(runDirty.outputs.suffix(100).allSatisfy { $0.trackingState == .normal })
    }

    @Test func stereoTracksMotion() {
        let traj = EstimationTrajectory(restDuration: 1.5, rampDuration: 1)
        let duration = 8.0
        let imu = traj.imuSamples(duration: duration, rate_hz: 200, noise: .euroc, seed: 51)
        let frames = Self.sparse.frames(trajectory: traj, duration: duration, pixelNoise: 0.5, stereo: true, seed: 52)
        var config = EstimatorConfiguration()
        config.updater.pixelNoiseStd = 0.5
        let run = EstimationRun(estimator: makeEstimator(config, stereo: true), trajectory: traj, imu: imu, frames: frames)
        print(summary("stereo", run))
        #expect(EstimationRun.rmse(run.alignedPositionErrors(run.initializedIndices)) < 0.02)
    }
}

@Suite struct DynamicInitializationTests {
    /// Starting in motion (no rest at all): the dynamic initialiser aligns 1 s of tracks with the IMU.
    @Test func initialisesInMotionAndTracks() throws {
        let scene = VIOEstimatorTests.sparse
        let traj = EstimationTrajectory(restDuration: 0, rampDuration: 0.3)
        let duration = 8.0
        let imu = traj.imuSamples(duration: duration, rate_hz: 200, accelBias: Vec3(0.02, -0.02, 0.01),
                                  noise: .euroc, seed: 61)
        let frames = scene.frames(trajectory: traj, duration: duration, pixelNoise: 0.5, seed: 62)
        var config = EstimatorConfiguration()
        config.updater.pixelNoiseStd = 0.5
        let vio = VIOEstimator(configuration: config, cameras: [scene.camera], imu: IMUCalibration(noise: .euroc, rate_hz: 200))
        let run = EstimationRun(estimator: vio, trajectory: traj, imu: imu, frames: frames)
        let k0 = try #require(run.diagnostics.firstIndex { $0.initialized })
        #expect(run.diagnostics[k0].dynamicInitialization)
        // The window is 1.5 s (30 frames); it must succeed within 0.5 s after it is full.
        #expect(k0 <= 40, "initialised at frame \(k0)")
        let out = run.outputs[k0], truth = run.truths[k0]
        let deg = 180 / Double.pi
        let g = out.T_W_B.rotation.inverse.act(Vec3(0, 0, 1)), gT = truth.R_W_B.inverse.act(Vec3(0, 0, 1))
        let tilt = acos(min(1, g.dot(gT))) * deg
        // Velocity in the body frame is independent of the yaw gauge.
        let vErr = (out.T_W_B.rotation.inverse.act(out.v_W) - truth.R_W_B.inverse.act(truth.v_W)).norm
        print("dynamic init at frame \(k0): tilt error \(tilt)°, body velocity error \(vErr) m/s (speed \(truth.v_W.norm) m/s)")
        // 0.5 px over a 1 s window with ~0.5 m of travel: about 1° and 5 cm/s are what the alignment gives.
        #expect(tilt < 2)
        #expect(vErr < 0.15)
        let idx = Array(k0..<frames.count)
        let rmse = EstimationRun.rmse(run.alignedPositionErrors(idx))
        print("dynamic init: ATE \(rmse) m over \(idx.count) frames; states \(Set(idx.map { run.outputs[$0].trackingState.description }))")
        #expect(rmse < 0.05)
    }
}

extension DynamicInitializationTests {
    /// Starting in motion with an uncalibrated gyro (bias ≈ 4 °/s per axis, the simulator's range): the
    /// initialiser estimates the bias from the window instead of aligning with increments rotated by it.
    /// With the estimate turned off (`gyroBiasIterations = 0`, the bias left at its zero prior, and no visual check)
    /// the same run starts with a 0.09 rad/s bias error and a worse velocity: the positive control.
    @Test func estimatesALargeGyroBiasAtDynamicInitialisation() throws {
        let scene = VIOEstimatorTests.sparse
        let traj = EstimationTrajectory(restDuration: 0, rampDuration: 0.3)
        let duration = 4.0
        let bias = Vec3(0.06, -0.045, 0.055)
        let imu = traj.imuSamples(duration: duration, rate_hz: 200, gyroBias: bias, accelBias: Vec3(0.02, -0.02, 0.01),
                                  noise: .euroc, seed: 63)
        let frames = scene.frames(trajectory: traj, duration: duration, pixelNoise: 0.5, seed: 64)
        func initialState(iterations: Int, visual: Bool = false) throws -> (biasError: Double, velocityError: Double, tiltDeg: Double) {
            var config = EstimatorConfiguration()
            config.updater.pixelNoiseStd = 0.5
            config.initializer.gyroBiasIterations = iterations
            config.initializer.visualGyroBias = visual
            let vio = VIOEstimator(configuration: config, cameras: [scene.camera], imu: IMUCalibration(noise: .euroc, rate_hz: 200))
            let run = EstimationRun(estimator: vio, trajectory: traj, imu: imu, frames: frames)
            let k0 = try #require(run.diagnostics.firstIndex { $0.initialized })
            #expect(run.diagnostics[k0].dynamicInitialization)
            let out = run.outputs[k0], truth = run.truths[k0]
            let g = out.T_W_B.rotation.inverse.act(Vec3(0, 0, 1)), gT = truth.R_W_B.inverse.act(Vec3(0, 0, 1))
            let vErr = (out.T_W_B.rotation.inverse.act(out.v_W) - truth.R_W_B.inverse.act(truth.v_W)).norm
            return ((out.gyroBias_B - bias).norm, vErr, acos(min(1, g.dot(gT))) * 180 / Double.pi)
        }
        let estimated = try initialState(iterations: 5)
        let prior = try initialState(iterations: 0)
        // The image rotations alone (`VisualGyroBias`, the alignment's refinement off) find the bias too.
        let visualOnly = try initialState(iterations: 0, visual: true)
        let both = try initialState(iterations: 5, visual: true)
        print("gyro bias from the image rotations alone: error \(visualOnly.biasError) rad/s; with both: \(both.biasError) rad/s")
        #expect(visualOnly.biasError < 0.01 && both.biasError < 0.01)
        #expect(visualOnly.velocityError < 0.1 && both.velocityError < 0.1)
        print("gyro bias at dynamic init: error \(estimated.biasError) rad/s estimated, \(prior.biasError) rad/s kept at the prior; "
              + "velocity error \(estimated.velocityError) vs \(prior.velocityError) m/s; tilt \(estimated.tiltDeg)° vs \(prior.tiltDeg)°")
        // Measured: 0.005 rad/s, 0.03 m/s, 0.5° estimated; 0.093 rad/s, 0.34 m/s, 2.0° at the prior.
        #expect(estimated.biasError < 0.01)
        #expect(prior.biasError > 0.05)
        #expect(estimated.velocityError < 0.1 && prior.velocityError > 0.2)
        #expect(estimated.tiltDeg < 1)
    }

    /// The image rotations' cost (`VisualGyroBias`) has local minima, so its search from the zero prior can stop in one.
    /// Here (a 0.4 rad/s gyro bias, a start in motion at 0.6 of the fixture's amplitude; the one window of 108 scanned,
    /// docs/ACCURACY.md, where the fourth candidate matters) the three candidates searched from the prior leave the
    /// initial bias 0.025 rad/s off; with the search started from the refinement it is 0.01 rad/s off. The control is
    /// the same run without that fourth candidate.
    @Test func searchesTheImageRotationsFromTheRefinedGyroBias() throws {
        let scene = VIOEstimatorTests.sparse
        let traj = EstimationTrajectory(restDuration: 0, rampDuration: 0.3, motionScale: 0.6)
        let duration = 3.0
        let bias = 0.4 * Vec3(sin(16 * 1.7), cos(16 * 2.3), sin(16 * 0.9 + 1)).normalized   // the scan's direction 16
        let imu = traj.imuSamples(duration: duration, rate_hz: 200, gyroBias: bias, accelBias: Vec3(0.02, -0.02, 0.01),
                                  noise: .euroc, seed: 116)
        let frames = scene.frames(trajectory: traj, duration: duration, pixelNoise: 0.7, seed: 216)
        func biasError(fromRefinement: Bool) throws -> Double {
            let (run, k0) = try Self.startInMotion(traj: traj, imu: imu, frames: frames, pixelNoise: 0.7) {
                $0.initializer.visualGyroBiasFromRefinement = fromRefinement
            }
            return (run.outputs[k0].gyroBias_B - bias).norm
        }
        let withIt = try biasError(fromRefinement: true), without = try biasError(fromRefinement: false)
        print("gyro bias at dynamic init, 0.4 rad/s bias: error \(withIt) rad/s with the search from the refinement, \(without) without")
        // Measured: 0.0097 and 0.0246 rad/s.
        #expect(withIt < 0.015)
        #expect(without > 0.02)
    }

    /// A fault in motion (a broken accelerometer for 0.3 s) → reset → `limited(relocalizing)` → the
    /// dynamic initialiser recovers while still moving, continuing from the last good position.
    @Test func recoversFromDivergenceInMotion() throws {
        let scene = VIOEstimatorTests.sparse
        let traj = EstimationTrajectory(restDuration: 1.5, rampDuration: 0.5)
        let duration = 9.0
        var imu = traj.imuSamples(duration: duration, rate_hz: 200, noise: .euroc, seed: 71)
        for i in imu.indices where imu[i].t_ns > 4_000_000_000 && imu[i].t_ns <= 4_300_000_000 {
            imu[i].accel_B += Vec3(60, 0, 0)
        }
        let frames = scene.frames(trajectory: traj, duration: duration, pixelNoise: 0.5, seed: 72)
        var config = EstimatorConfiguration()
        config.updater.pixelNoiseStd = 0.5
        let vio = VIOEstimator(configuration: config, cameras: [scene.camera], imu: IMUCalibration(noise: .euroc, rate_hz: 200))
        let run = EstimationRun(estimator: vio, trajectory: traj, imu: imu, frames: frames)
        let states = run.outputs.map(\.trackingState)
        let reset = try #require(run.diagnostics.firstIndex { $0.reset }, "the fault must be detected")
        #expect(reset >= 80 && reset <= 90, "reset at frame \(reset)")
        #expect(states[reset] == .limited(.relocalizing))
        let again = try #require(run.diagnostics.indices.first { $0 > reset && run.diagnostics[$0].initialized })
        #expect(run.diagnostics[again].dynamicInitialization)
        // Recovery within the 1.5 s window plus 0.5 s.
        #expect(again - reset <= 40, "re-initialised \(again - reset) frames after the reset")
        #expect(states.suffix(40).allSatisfy { $0 == .normal }, "\(states.suffix(60).map(\.description))")
        // Position continuity: the jump at re-initialisation is the motion since the last good frame
        // (≤ 2 s at ≤ 1.5 m/s) — no jump back to the origin.
        let lastGood = try #require((0..<reset).last { states[$0] == .normal })
        let jump = (run.outputs[again].T_W_B.translation - run.outputs[lastGood].T_W_B.translation).norm
        print("divergence in motion: reset at frame \(reset), re-initialised at \(again), position jump \(jump) m")
        #expect(jump < 3, "jump \(jump) m")
        for o in run.outputs { #expect(o.T_W_B.translation.isFinite && o.v_W.isFinite) }
    }
}

extension DynamicInitializationTests {
    /// With `tiltAccelBiasCorrelation` the dynamic initialiser's covariance says how its tilt and velocity move with
    /// the accelerometer bias it took as zero (`DynamicInitializer.accelBiasSensitivity`: `P_xb = σ_ba² K`). Checked
    /// against the answer itself: the same noise-free window aligned once with an unbiased IMU and once with a
    /// 0.17 m/s² bias differs by `K b` in tilt (across gravity) and velocity (measured: within 1.5 % and 4 %). A sign slip in
    /// `K` fails it.
    @Test func theInitialCovarianceCarriesTheAlignmentsAccelerometerBiasSensitivity() throws {
        let scene = VIOEstimatorTests.sparse
        let traj = EstimationTrajectory(restDuration: 0, rampDuration: 0.3)
        let b = Vec3(0.12, -0.10, 0.06)
        let frames = scene.frames(trajectory: traj, duration: 1.5, seed: 71).map { f in
            DynamicInitializer.WindowFrame(t_ns: f.t_ns, observations: f.observations.map {
                FeatureObservation(id: $0.id, camera: $0.camera, normalized: $0.normalized)
            })
        }
        func buffer(_ accelBias: Vec3) -> IMUBuffer {
            var buffer = IMUBuffer()
            for s in traj.imuSamples(duration: 1.6, rate_hz: 200, accelBias: accelBias) { _ = buffer.append(s) }
            return buffer
        }
        var config = EstimatorConfiguration()
        config.initializer.tiltAccelBiasCorrelation = true
        let initializer = DynamicInitializer(configuration: config, cameras: [scene.camera], noise: .euroc)
        let unbiased = try #require(initializer.initialize(frames: frames, buffer: buffer(.zero), gyroBias: .zero))
        let biased = try #require(initializer.initialize(frames: frames, buffer: buffer(b), gyroBias: .zero))
        let ba2 = pow(config.initializer.initialAccelBiasStd, 2)
        // The error of the biased answer against the unbiased one (the truth, up to the window's own error):
        // R_true = R_est · Exp(δθ), v_true = v_est + δv; across gravity only (about it is the yaw gauge).
        let up = biased.state.R_W_B.inverse.act(Vec3(0, 0, 1))
        let across = Mat3.identity - Mat3.outer(up, up)
        let tilt = across * (biased.state.R_W_B.inverse * unbiased.state.R_W_B).log
        let velocity = unbiased.state.v_W - biased.state.v_W
        let predictedTilt = (1 / ba2) * (biased.covariance.block(ErrorIndex.theta, ErrorIndex.accelBias) * b)
        let predictedVelocity = (1 / ba2) * (biased.covariance.block(ErrorIndex.velocity, ErrorIndex.accelBias) * b)
        print("accel-bias sensitivity: tilt \(tilt) rad against \(predictedTilt) predicted; velocity \(velocity) m/s against \(predictedVelocity)")
        // A 0.17 m/s² bias across gravity reads as about 1° of tilt; the velocity moves by several cm/s.
        #expect(predictedTilt.norm > 0.005 && predictedVelocity.norm > 0.02)
        #expect((tilt - predictedTilt).norm < 0.1 * predictedTilt.norm)
        #expect((velocity - predictedVelocity).norm < 0.15 * predictedVelocity.norm)
        // The correlated covariance is a covariance (positive semi-definite over tilt, velocity and bias).
        let indices = [ErrorIndex.theta, ErrorIndex.velocity, ErrorIndex.accelBias].flatMap { s in (0..<3).map { s + $0 } }
        let sub = Matrix(rows: 9, columns: 9, rowMajor: indices.flatMap { i in indices.map { j in biased.covariance[i, j] } })
        #expect((try? sub.symmetrized().symmetricPositiveDefiniteInverse()) != nil)
    }
}

extension DynamicInitializationTests {
    /// Starts in motion with an accelerometer bias of 0.2 m/s² (four directions, three noise seeds; the estimator's
    /// simulated room, 10 s): with the tilt and velocity correlated with the bias at initialisation
    /// (`tiltAccelBiasCorrelation`) the filter reads the bias out of what it learns of the tilt, and the reverse.
    /// The control is the same twelve runs with the independent bounds alone. Measured: position RMSE 22.5 → 19.9 mm
    /// and tilt error 0.44° → 0.38° (means), 9 and 11 of the 12 runs better; the largest loss 9 % (19.6 → 21.3 mm).
    @Test func correlatingTheTiltWithTheAccelerometerBiasHelpsAStartInMotion() throws {
        let scene = VIOEstimatorTests.sparse
        let traj = EstimationTrajectory(restDuration: 0, rampDuration: 0.3)
        let duration = 10.0
        let biases = [Vec3(0.15, -0.12, 0.03), Vec3(-0.1, 0.15, -0.05), Vec3(0.2, 0, 0), Vec3(0, -0.2, 0.08)]
        var ate: [Bool: [Double]] = [:], tilt: [Bool: [Double]] = [:]
        for b in biases {
            for seed in [91, 93, 95] as [UInt64] {
                let imu = traj.imuSamples(duration: duration, rate_hz: 200, accelBias: b, noise: .euroc, seed: seed)
                let frames = scene.frames(trajectory: traj, duration: duration, pixelNoise: 0.5, seed: seed + 1)
                for correlated in [false, true] {
                    let (run, k0) = try Self.startInMotion(traj: traj, imu: imu, frames: frames, pixelNoise: 0.5) {
                        $0.initializer.tiltAccelBiasCorrelation = correlated
                    }
                    let idx = Array(k0..<frames.count)
                    ate[correlated, default: []].append(EstimationRun.rmse(run.alignedPositionErrors(idx)))
                    let degrees = idx.map { k -> Double in
                        let g = run.outputs[k].T_W_B.rotation.inverse.act(Vec3(0, 0, 1))
                        let gT = run.truths[k].R_W_B.inverse.act(Vec3(0, 0, 1))
                        return acos(min(1, g.dot(gT))) * 180 / Double.pi
                    }
                    tilt[correlated, default: []].append(degrees.reduce(0, +) / Double(idx.count))
                }
            }
        }
        func mean(_ v: [Double]?) -> Double { (v ?? []).reduce(0, +) / Double(max(1, v?.count ?? 0)) }
        print("accel-bias correlation at dynamic init: position RMSE \(mean(ate[false])) → \(mean(ate[true])) m, "
              + "tilt \(mean(tilt[false]))° → \(mean(tilt[true]))° (means of \(ate[true]?.count ?? 0) runs)")
        #expect(mean(ate[true]) < 0.93 * mean(ate[false]))
        #expect(mean(tilt[true]) < 0.93 * mean(tilt[false]))
        for (with, without) in zip(ate[true] ?? [], ate[false] ?? []) { #expect(with < 1.15 * without) }
    }
}

extension DynamicInitializationTests {
    /// Runs the estimator on the sparse scene's `frames` and `imu` (pixel noise `pixelNoise`, then `configure`) and
    /// returns the run with its first initialised frame, which must have been a dynamic initialisation.
    static func startInMotion(traj: EstimationTrajectory, imu: [IMUSample], frames: [EstimationSimFrame], pixelNoise: Double,
                              configure: (inout EstimatorConfiguration) -> Void) throws -> (run: EstimationRun, k0: Int) {
        var config = EstimatorConfiguration()
        config.updater.pixelNoiseStd = pixelNoise
        configure(&config)
        let vio = VIOEstimator(configuration: config, cameras: [VIOEstimatorTests.sparse.camera],
                               imu: IMUCalibration(noise: .euroc, rate_hz: 200))
        let run = EstimationRun(estimator: vio, trajectory: traj, imu: imu, frames: frames)
        let k0 = try #require(run.diagnostics.firstIndex { $0.initialized })
        #expect(run.diagnostics[k0].dynamicInitialization)
        return (run, k0)
    }
}

extension DynamicInitializationTests {
    /// The same frames and IMU run twice on the sparse scene (0.5 px): the dynamic initialiser's tries in place, and on
    /// their worker thread (`dynamicInitializationOnWorker`, the pipeline's setting).
    static func inPlaceAndOnWorker(_ traj: EstimationTrajectory, imu: [IMUSample], frames: [EstimationSimFrame])
        -> (inPlace: EstimationRun, worker: EstimationRun) {
        func run(onWorker: Bool) -> EstimationRun {
            var config = EstimatorConfiguration()
            config.updater.pixelNoiseStd = 0.5
            config.initializer.dynamicInitializationOnWorker = onWorker
            let vio = VIOEstimator(configuration: config, cameras: [VIOEstimatorTests.sparse.camera],
                                   imu: IMUCalibration(noise: .euroc, rate_hz: 200))
            return EstimationRun(estimator: vio, trajectory: traj, imu: imu, frames: frames)
        }
        return (run(onWorker: false), run(onWorker: true))
    }

    /// With the tries on the worker, the frame that initialised in place reports `limited(initializing)` without an
    /// estimate, and from the next frame on the estimates are bit for bit those of the tries run in place (the worker's
    /// outcome is applied at its window's last frame, and the next frame tracked from it). The worker's CPU time comes
    /// with the frame that takes the outcome.
    @Test func triesOnTheWorkerGiveTheEstimatesOfTriesInPlace() throws {
        let traj = EstimationTrajectory(restDuration: 0, rampDuration: 0.3)
        let duration = 5.0
        let imu = traj.imuSamples(duration: duration, rate_hz: 200, accelBias: Vec3(0.02, -0.02, 0.01), noise: .euroc, seed: 61)
        let frames = VIOEstimatorTests.sparse.frames(trajectory: traj, duration: duration, pixelNoise: 0.5, seed: 62)
        let (inPlace, worker) = Self.inPlaceAndOnWorker(traj, imu: imu, frames: frames)
        let k0 = try #require(inPlace.diagnostics.firstIndex { $0.initialized })
        #expect(inPlace.diagnostics[k0].dynamicInitialization)
        #expect(inPlace.diagnostics.allSatisfy { $0.initWorkerCPU_ns == 0 })
        #expect(worker.diagnostics.firstIndex { $0.initialized } == k0 + 1)
        #expect(worker.diagnostics[k0 + 1].dynamicInitialization && worker.diagnostics[k0 + 1].initWorkerCPU_ns > 0)
        #expect(worker.outputs[k0].trackingState == .limited(.initializing) && worker.outputs[k0].positionStd_m == .infinity)
        #expect(inPlace.outputs[k0].positionStd_m.isFinite)
        let differing = ((k0 + 1)..<frames.count).filter { inPlace.outputs[$0] != worker.outputs[$0] }
        #expect(differing.isEmpty, "frames \(differing.prefix(5)) differ")
        #expect(worker.outputs.last?.trackingState == .normal)
    }

    /// The same after a reset in motion (`recoversFromDivergenceInMotion`'s broken accelerometer): the re-initialisation
    /// with the try on the worker continues from the last good pose as in place, and from the frame after the in-place
    /// re-initialisation on the estimates are the same bit for bit.
    @Test func aReinitialisationOnTheWorkerGivesTheEstimatesInPlace() throws {
        let traj = EstimationTrajectory(restDuration: 1.5, rampDuration: 0.5)
        let duration = 8.0
        var imu = traj.imuSamples(duration: duration, rate_hz: 200, noise: .euroc, seed: 71)
        for i in imu.indices where imu[i].t_ns > 4_000_000_000 && imu[i].t_ns <= 4_300_000_000 {
            imu[i].accel_B += Vec3(60, 0, 0)
        }
        let frames = VIOEstimatorTests.sparse.frames(trajectory: traj, duration: duration, pixelNoise: 0.5, seed: 72)
        let (inPlace, worker) = Self.inPlaceAndOnWorker(traj, imu: imu, frames: frames)
        let reset = try #require(inPlace.diagnostics.firstIndex { $0.reset })
        #expect(worker.diagnostics.firstIndex { $0.reset } == reset)
        let again = try #require(inPlace.diagnostics.indices.first { $0 > reset && inPlace.diagnostics[$0].initialized })
        #expect(inPlace.diagnostics[again].dynamicInitialization)
        #expect(worker.diagnostics.indices.first { $0 > reset && worker.diagnostics[$0].initialized } == again + 1)
        let differing = ((again + 1)..<frames.count).filter { inPlace.outputs[$0] != worker.outputs[$0] }
        #expect(differing.isEmpty, "frames \(differing.prefix(5)) differ")
        #expect(worker.outputs.last?.trackingState == .normal)
    }
}
