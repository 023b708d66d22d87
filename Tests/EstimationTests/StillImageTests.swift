import Foundation
import Geometry
import Sensors
import Simulation
import Testing
import TestSupport
@testable import Estimation

/// A body gliding at constant velocity and attitude: its IMU reads exactly what it would at rest.
private struct GlideTrajectory: Trajectory {
    var name: String { "glide" }
    var R_W_B: SO3
    var v_W: Vec3
    func state(at t: Double) -> TrajectoryState {
        TrajectoryState(t: t, T_W_B: SE3(rotation: R_W_B, translation: v_W * t), v_W: v_W, a_W: .zero, omega_B: .zero)
    }
}

@Suite struct ImageMotionHistoryTests {
    /// Points moving `step` (normalised units) per frame along x.
    private func frame(_ k: Int, step: Double, ids: Range<Int> = 0..<20) -> [Int: Vec2] {
        Dictionary(uniqueKeysWithValues: ids.map { ($0, Vec2(Double($0) * 0.01 + Double(k) * step, 0.1)) })
    }

    /// The displacement spans the kept frames (those within the baseline of the newest), not the last pair.
    @Test func measuresOverTheBaseline() throws {
        var history = ImageMotionHistory(baseline_s: 0.5)
        for k in 0..<30 { history.add(t_ns: Int64(k) * 50_000_000, points: frame(k, step: 0.001)) }
        // Frames 19…29 lie within 0.5 s of frame 29: ten steps.
        #expect(abs(try #require(history.displacement()) - 0.010) < 1e-12)
        #expect(abs(history.span_s - 0.5) < 1e-9)
        // A frame not newer than the last one is ignored.
        history.add(t_ns: 29 * 50_000_000, points: frame(100, step: 0.001))
        #expect(abs(try #require(history.displacement()) - 0.010) < 1e-12)
    }

    /// The median ignores a minority of wild tracks; too few common tracks give no answer.
    @Test func medianAndTooFewTracks() throws {
        var history = ImageMotionHistory(baseline_s: 1)
        history.add(t_ns: 0, points: frame(0, step: 0))
        var moved = frame(0, step: 0)
        for id in 0..<9 { moved[id] = Vec2(5, 5) }          // 9 of 20 tracks jump
        history.add(t_ns: 50_000_000, points: moved)
        #expect(try #require(history.displacement()) == 0)
        var few = ImageMotionHistory(baseline_s: 1)
        few.add(t_ns: 0, points: frame(0, step: 0, ids: 0..<4))
        few.add(t_ns: 50_000_000, points: frame(1, step: 0.01, ids: 0..<4))
        #expect(few.displacement() == nil)
        #expect(few.displacement(minTracks: 4) != nil)
    }
}

@Suite struct StillImageTests {
    /// A body gliding at 0.35 m/s past walls 12–17 m away: its IMU is that of a body at rest, and its image moves
    /// about 0.6 px per frame (under the 1 px still threshold), but 6 px over half a second. Neither the static
    /// initialiser nor the zero-velocity update may take it for rest (V1_01's courtyard render, 42 s into the
    /// flight: one such update cut mono's scale to a fifth). Control: judged on the frame pair alone
    /// (`stillImageBaseline_s = 0`) the static initialiser starts it at rest.
    @Test func aSlowGlidePastFarStructureIsNotRest() throws {
        let scene = EstimationScene(halfExtent: Vec3(16, 16, 6), zOffset: 0, density: 0.15, seed: 11)
        let R_W_B = EstimationTrajectory.rotation(euler: Vec3(0.02, -0.03, 0.3))
        // Sideways to the view: the translation moves the whole image.
        let axis_W = R_W_B.act(scene.camera.T_B_C.rotation.act(Vec3(0, 0, 1)))
        let glide = GlideTrajectory(R_W_B: R_W_B, v_W: 0.35 * axis_W.cross(Vec3(0, 0, 1)).normalized)
        let duration = 4.0
        let imu = IMUSynthesizer.synthesize(trajectory: glide, seconds: duration, startTime_ns: 0,
                                            options: IMUSimulationOptions(noise: .euroc, rate_hz: 200, whiteNoise: true, biases: true,
                                                                          biasRandomWalk: true),
                                            seed: 5).samples
        let frames = scene.frames(trajectory: glide, duration: duration, pixelNoise: 0.3, dropRate: 0, seed: 6)
        func run(baseline_s: Double) -> EstimationRun {
            var config = EstimatorConfiguration()
            config.stillImageBaseline_s = baseline_s
            let estimator = VIOEstimator(configuration: config, cameras: [scene.camera], imu: IMUCalibration(noise: .euroc, rate_hz: 200))
            return EstimationRun(estimator: estimator, trajectory: glide, imu: imu, frames: frames)
        }
        let pair = run(baseline_s: 0).diagnostics
        let disparities = pair.compactMap(\.disparity_px).sorted()
        let median = try #require(disparities.isEmpty ? nil : disparities[disparities.count / 2])
        #expect(median > 0.3 && median < 1.0, "the frame pair looks still: \(median) px")
        #expect(pair.contains { $0.initialized && !$0.dynamicInitialization }, "control: the frame pair alone starts it at rest")

        let diagnostics = run(baseline_s: 0.5).diagnostics
        #expect(!diagnostics.contains { $0.initialized && !$0.dynamicInitialization }, "never started at rest")
        #expect(diagnostics.filter(\.zeroVelocityUpdate).isEmpty, "never stopped by a zero-velocity update")
        let moved = diagnostics.compactMap(\.baselineDisparity_px)
        #expect(!moved.isEmpty && moved.suffix(20).allSatisfy { $0 > 4 }, "over half a second the image moves: \(moved.suffix(5))")
    }
}
