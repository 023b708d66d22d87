import Foundation
import Geometry
import Sensors
import Simulation

/// A smooth analytic body trajectory: sinusoids in position and ZYX Euler angles, with a rest phase of
/// `restDuration` seconds at the start and a C¹-smooth ramp of `rampDuration` seconds into motion.
///
/// Time is warped, `p(t) = P(τ(t))`, with `τ' = 0` at rest, rising smoothly to 1; all derivatives are
/// exact (chain rule), so the IMU samples Simulation's `IMUSynthesizer` computes from it are exact.
public struct EstimationTrajectory: Trajectory {
    /// Name (`Trajectory`).
    public var name: String { "estimation-fixture" }
    public var restDuration: Double
    public var rampDuration: Double
    /// Multiplies every motion amplitude (0 gives a body at rest forever).
    public var motionScale: Double
    public var center: Vec3 = Vec3(0, 0, 0)
    /// Constant Euler angle offsets (roll, pitch, yaw), radians.
    public var eulerOffset: Vec3 = Vec3(0.05, -0.08, 0.3)

    // Position sinusoids: amplitude (m), angular frequency (rad/s), phase.
    let posA = Vec3(1.0, 0.8, 0.3), posW = Vec3(2 * .pi * 0.2, 2 * .pi * 0.15, 2 * .pi * 0.25), posPh = Vec3(0, 0.5, 1.0)
    // Euler sinusoids (roll, pitch, yaw).
    let eulA = Vec3(0.1, 0.15, 0.4), eulW = Vec3(2 * .pi * 0.31, 2 * .pi * 0.23, 2 * .pi * 0.1), eulPh = Vec3(0.3, 0, 0)

    public init(restDuration: Double = 2, rampDuration: Double = 2, motionScale: Double = 1) {
        self.restDuration = restDuration; self.rampDuration = rampDuration; self.motionScale = motionScale
    }

    /// τ, τ', τ'' at time t.
    func warp(_ t: Double) -> (Double, Double, Double) {
        if t <= restDuration { return (0, 0, 0) }
        let T = rampDuration
        if T <= 0 { return (t - restDuration, 1, 0) }
        let x = (t - restDuration) / T
        if x < 1 { return (T * (x * x * x - x * x * x * x / 2), x * x * (3 - 2 * x), 6 * x * (1 - x) / T) }
        return (T / 2 + (t - restDuration - T), 1, 0)
    }

    private func sinusoid(_ A: Vec3, _ w: Vec3, _ ph: Vec3, _ tau: Double) -> (Vec3, Vec3, Vec3) {
        let arg = w * tau + ph
        let s = Vec3(sin(arg.x), sin(arg.y), sin(arg.z)), c = Vec3(cos(arg.x), cos(arg.y), cos(arg.z))
        let k = motionScale
        return (k * A * (s - Vec3(sin(ph.x), sin(ph.y), sin(ph.z))), k * A * w * c, -k * A * w * w * s)
    }

    /// Rotation `Rz(yaw) Ry(pitch) Rx(roll)` from (roll, pitch, yaw).
    public static func rotation(euler e: Vec3) -> SO3 {
        SO3(angle: e.z, axis: Vec3(0, 0, 1)) * SO3(angle: e.y, axis: Vec3(0, 1, 0)) * SO3(angle: e.x, axis: Vec3(1, 0, 0))
    }

    /// The exact state at `t` seconds.
    public func state(at t: Double) -> TrajectoryState {
        let (tau, d1, d2) = warp(t)
        let (P, P1, P2) = sinusoid(posA, posW, posPh, tau)
        let (E, E1, E2) = sinusoid(eulA, eulW, eulPh, tau)
        _ = E2
        let e = E + eulerOffset
        let eDot = E1 * d1
        let (phi, theta) = (e.x, e.y)
        let omega = Vec3(eDot.x - eDot.z * sin(theta),
                         eDot.y * cos(phi) + eDot.z * sin(phi) * cos(theta),
                         -eDot.y * sin(phi) + eDot.z * cos(phi) * cos(theta))
        return TrajectoryState(t: t, T_W_B: SE3(rotation: Self.rotation(euler: e), translation: center + P), v_W: P1 * d1,
                               a_W: P2 * d1 * d1 + P1 * d2, omega_B: omega)
    }

    /// IMU samples at `rate_hz` from 0 to `duration` seconds (inclusive) from Simulation's `IMUSynthesizer`, with
    /// constant biases `gyroBias` / `accelBias`; with a `noise` model also white noise and bias random walks
    /// starting from those biases (seeded).
    public func imuSamples(duration: Double, rate_hz: Double, gyroBias: Vec3 = .zero, accelBias: Vec3 = .zero,
                           noise: IMUNoiseModel? = nil, seed: UInt64 = 1) -> [IMUSample] {
        let options = IMUSimulationOptions(noise: noise ?? .euroc, rate_hz: rate_hz, whiteNoise: noise != nil, biases: true,
                                           biasRandomWalk: noise != nil, initialGyroBias_B: gyroBias, initialAccelBias_B: accelBias)
        return IMUSynthesizer.synthesize(trajectory: self, seconds: duration, startTime_ns: 0, options: options, seed: seed).samples
    }
}

/// One simulated feature observation (undistorted normalised coordinates).
public struct EstimationSimObservation: Sendable {
    public var id: Int
    public var camera: Int
    public var normalized: Vec2
    public var rightNormalized: Vec2?
    /// True when this observation was replaced by a random outlier.
    public var isOutlier: Bool
}

/// One simulated frame of observations.
public struct EstimationSimFrame: Sendable {
    public var t_ns: TimestampNs
    public var observations: [EstimationSimObservation]
}

/// A simulated camera rig and 3-D scene for estimator tests: landmarks on the walls, floor and ceiling
/// of a box room around the trajectory, a forward-looking pinhole camera (f = 460 px, 752×480) and an
/// optional stereo partner 11 cm to its right.
public struct EstimationScene: Sendable {
    public var landmarks_W: [Vec3]
    public var camera: CameraCalibration
    public var rightCamera: CameraCalibration

    /// Landmarks with about `density` points per m² on a box `[-half.x, half.x] × …`, seeded.
    public init(halfExtent: Vec3 = Vec3(5, 5, 2), zOffset: Double = 0.5, density: Double = 3, seed: UInt64 = 7) {
        var rng = SeededRandom(seed: seed)
        var pts: [Vec3] = []
        let h = halfExtent
        func face(_ n: Int, _ make: (Double, Double) -> Vec3) {
            for _ in 0..<n { pts.append(make(rng.uniform() * 2 - 1, rng.uniform() * 2 - 1) + Vec3(0, 0, zOffset)) }
        }
        let jitter = 0.3
        face(Int(density * 4 * h.y * h.z)) { a, b in Vec3(h.x, a * h.y, b * h.z) }
        face(Int(density * 4 * h.y * h.z)) { a, b in Vec3(-h.x, a * h.y, b * h.z) }
        face(Int(density * 4 * h.x * h.z)) { a, b in Vec3(a * h.x, h.y, b * h.z) }
        face(Int(density * 4 * h.x * h.z)) { a, b in Vec3(a * h.x, -h.y, b * h.z) }
        face(Int(density * 4 * h.x * h.y)) { a, b in Vec3(a * h.x, b * h.y, h.z) }
        face(Int(density * 4 * h.x * h.y)) { a, b in Vec3(a * h.x, b * h.y, -h.z) }
        // Relief: move each point a little off its face so the scene is not piecewise planar.
        landmarks_W = pts.map { $0 + Vec3(rng.uniform() - 0.5, rng.uniform() - 0.5, rng.uniform() - 0.5) * jitter }
        let model = CameraModel(width: 752, height: 480, intrinsics: PinholeIntrinsics(fx: 460, fy: 460, cx: 376, cy: 240))
        // Body: x forward, y left, z up. Camera: z = body x, x = −body y, y = −body z.
        let R_B_C = SO3(matrix: Mat3(columns: Vec3(0, -1, 0), Vec3(0, 0, -1), Vec3(1, 0, 0)))
        camera = CameraCalibration(name: "cam0", model: model, rate_hz: 20,
                                   T_B_C: SE3(rotation: R_B_C, translation: Vec3(0.05, 0.02, 0.01)))
        rightCamera = CameraCalibration(name: "cam1", model: model, rate_hz: 20,
                                        T_B_C: SE3(rotation: R_B_C, translation: Vec3(0.05, -0.09, 0.01)))
    }

    /// Observations of every visible landmark at the true pose, at `rate_hz` from 0 to `duration` s.
    /// - Parameters:
    ///   - pixelNoise: 1-σ Gaussian pixel noise added before normalising.
    ///   - outlierRate: probability that an observation is replaced by a uniformly random pixel.
    ///   - dropRate: per-frame probability that a track is lost and re-detected under a new id.
    ///   - stereo: also give the right camera's coordinates when the point is visible there.
    public func frames(trajectory: some Trajectory, duration: Double, rate_hz: Double = 20,
                       pixelNoise: Double = 0, outlierRate: Double = 0, dropRate: Double = 0.02,
                       stereo: Bool = false, seed: UInt64 = 3) -> [EstimationSimFrame] {
        var rng = SeededRandom(seed: seed)
        let n = landmarks_W.count
        var generation = [Int](repeating: 0, count: n)
        var visibleBefore = [Bool](repeating: false, count: n)
        var out: [EstimationSimFrame] = []
        let count = Int((duration * rate_hz).rounded())
        let intr = camera.model.intrinsics
        for k in 0...count {
            let t_ns = Int64(k) * Int64((1e9 / rate_hz).rounded())
            let s = trajectory.state(at: Double(t_ns) * 1e-9)
            let T_C_W = (s.T_W_B * camera.T_B_C).inverse
            let T_C1_W = (s.T_W_B * rightCamera.T_B_C).inverse
            var obs: [EstimationSimObservation] = []
            for i in 0..<n {
                let p_C = T_C_W.act(landmarks_W[i])
                guard p_C.z > 0.3, let px = camera.model.project(p_C), camera.model.contains(px, margin: 5) else {
                    if visibleBefore[i] { generation[i] += 1 }
                    visibleBefore[i] = false
                    continue
                }
                if visibleBefore[i], rng.uniform() < dropRate { generation[i] += 1 }
                visibleBefore[i] = true
                var pixel = px + Vec2(rng.gaussian(), rng.gaussian()) * pixelNoise
                var outlier = false
                if rng.uniform() < outlierRate {
                    pixel = Vec2(rng.uniform() * Double(camera.model.width), rng.uniform() * Double(camera.model.height))
                    outlier = true
                }
                let normalized = Vec2((pixel.x - intr.cx) / intr.fx, (pixel.y - intr.cy) / intr.fy)
                var right: Vec2? = nil
                if stereo {
                    let p_C1 = T_C1_W.act(landmarks_W[i])
                    if p_C1.z > 0.3, let px1 = rightCamera.model.project(p_C1), rightCamera.model.contains(px1) {
                        let pix1 = px1 + Vec2(rng.gaussian(), rng.gaussian()) * pixelNoise
                        right = Vec2((pix1.x - intr.cx) / intr.fx, (pix1.y - intr.cy) / intr.fy)
                    }
                }
                obs.append(EstimationSimObservation(id: i + n * generation[i], camera: 0, normalized: normalized,
                                                    rightNormalized: right, isOutlier: outlier))
            }
            out.append(EstimationSimFrame(t_ns: t_ns, observations: obs))
        }
        return out
    }
}

/// The package root (the folder holding Package.swift), found from this file's path.
public enum EstimationPaths {
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
    /// `../shared/datasets/euroc-v101-micro` relative to the package root.
    public static var eurocMicro: URL {
        packageRoot.deletingLastPathComponent().appendingPathComponent("shared/datasets/euroc-v101-micro")
    }
}
