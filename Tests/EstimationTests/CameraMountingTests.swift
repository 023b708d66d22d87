import Foundation
import Geometry
import Sensors
import Testing
@testable import Estimation

/// Camera 0's mounting in the filter state (`ExtrinsicOptions`): the state layout, the injection, and the MSCKF's
/// Jacobian columns for it, for both cameras of a stereo rig (camera 1 rigidly attached to camera 0).
@Suite struct CameraMountingTests {
    static let cam0 = MsckfStepTests.camera
    /// A right camera 11 cm along camera 0's x axis, slightly rotated.
    static let cam1 = CameraCalibration(
        name: "cam1", model: cam0.model, rate_hz: 20,
        T_B_C: cam0.T_B_C * SE3(rotation: SO3(angle: 0.02, axis: Vec3(0.1, 1, 0).normalized), translation: Vec3(0.11, 0.001, -0.002)))

    /// A state that estimates the mounting (starting 0.5° and 4 mm off the calibration, so the Jacobian is not
    /// taken at the calibration's values), four clones on an arc, and a track of one point seen by both cameras
    /// at each clone, projected with that mounting.
    static func scene() -> (FilterState, FeatureTrack, SE3) {
        let T_B_C0 = cam0.T_B_C * SE3(rotation: SO3(angle: 0.5 * .pi / 180, axis: Vec3(1, -1, 2).normalized),
                                      translation: Vec3(0.004, 0, -0.002))
        var state = FilterState(imu: IMUState(t_ns: 0), covariance: .identity, extrinsic: (T_B_C0, 1e-4, 1e-4))
        let mounting = CameraMounting(cameras: [cam0, cam1])
        let p_W = MsckfStepTests.scenePoint
        var track = FeatureTrack(id: 1)
        for k in 0..<4 {
            MsckfStepTests.addArcClone(k, to: &state)
            for c in 0..<2 {
                let p_C = mounting.T_B_C(c, state: state).inverse * (state.imu.R_W_B.inverse.act(p_W - state.imu.p_W))
                track.observations.append(TrackObservation(t_ns: state.imu.t_ns, camera: c, normalized: Vec2(p_C.x / p_C.z, p_C.y / p_C.z)))
            }
        }
        return (state, track, T_B_C0)
    }

    @Test("the mounting sits between the time offset and the clones, and a correction moves it on the right")
    func layoutAndInjection() {
        let T = Self.cam0.T_B_C
        var state = FilterState(imu: IMUState(t_ns: 0), covariance: .identity, timeOffset: (0, 1e-4), extrinsic: (T, 4e-4, 9e-4))
        #expect(state.timeOffsetIndex == 15 && state.extrinsicIndex == 16 && state.cloneStart == 22)
        #expect(state.covariance(16, 16) == 4e-4 && state.covariance(19, 19) == 9e-4 && state.covariance(16, 19) == 0)
        state.augmentClone()
        #expect(state.dimension == 28 && state.cloneIndex(0) == 22)
        var dx = [Double](repeating: 0, count: state.dimension)
        dx[16] = 0.01; dx[21] = 0.005
        state.inject(dx)
        let moved = try! #require(state.T_B_C0)
        #expect((moved.rotation.matrix - (T.rotation * SO3.exp(Vec3(0.01, 0, 0))).matrix).frobeniusNorm < 1e-12)
        #expect((moved.translation - (T.translation + Vec3(0, 0, 0.005))).norm < 1e-12)
        // Without the option the state has no mounting block.
        let plain = FilterState(imu: IMUState(t_ns: 0), covariance: .identity)
        #expect(plain.extrinsicIndex == nil && plain.T_B_C0 == nil && plain.cloneStart == 15)
    }

    /// Each mounting column of `H_x` (the first six) matches a central difference of the whitened prediction under
    /// `R_B_C0 Exp(δφ)`, `p_B_C0 + δp`, for camera 0's and camera 1's observations; the clone columns follow at +6.
    @Test func mountingJacobianMatchesFiniteDifferences() throws {
        let (state, track, T_B_C0) = Self.scene()
        let updater = MSCKFUpdater(cameras: [Self.cam0, Self.cam1], configuration: EstimatorConfiguration())
        var cloneIndex: [TimestampNs: Int] = [:]
        for (i, c) in state.clones.enumerated() { cloneIndex[c.t_ns] = i }
        let f = try #require(updater.linearize(track, state: state, cloneIndex: cloneIndex))
        #expect(f.mountingColumns == 6 && f.rows == 16 && f.columns == 6 + 24)
        #expect(f.r.allSatisfy { abs($0) < 1e-5 })
        let T_C0_C1 = Self.cam0.T_B_C.inverse * Self.cam1.T_B_C
        let w = 1 / updater.sigma(0), eps = 1e-6
        var worst = 0.0
        for (k, o) in track.observations.enumerated() {
            let clone = state.clones[f.observationClones[k]]
            for col in 0..<6 {
                var d = Vec3.zero
                d[col % 3] = eps
                func h(_ s: Double) -> Vec2 {
                    let T0 = col < 3 ? SE3(rotation: T_B_C0.rotation * SO3.exp(s * d), translation: T_B_C0.translation)
                        : SE3(rotation: T_B_C0.rotation, translation: T_B_C0.translation + s * d)
                    let T = o.camera == 0 ? T0 : T0 * T_C0_C1
                    let p_C = T.inverse * clone.R_W_B.inverse.act(f.point.p_W - clone.p_W)
                    return Vec2(p_C.x / p_C.z, p_C.y / p_C.z)
                }
                let numeric = (h(1) - h(-1)) / (2 * eps) * w
                // r = z − h: the Jacobian of the residual is −∂h; the stored rows are ∂h (as for the clones).
                worst = max(worst, abs(f.Hx[(2 * k) * f.columns + col] - numeric.x) / max(1, abs(numeric.x)),
                            abs(f.Hx[(2 * k + 1) * f.columns + col] - numeric.y) / max(1, abs(numeric.y)))
            }
        }
        #expect(worst < 1e-4)
        // Control: the mounting columns are not zero (the check above would pass trivially if they were).
        #expect((0..<6).contains { abs(f.Hx[$0]) > 1 })
    }
}
