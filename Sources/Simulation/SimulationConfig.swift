import Foundation
import Geometry
import Sensors

/// Everything that defines a simulated dataset. Same config (including `seed`) → byte-identical output.
public struct SimulationConfig: Sendable {
    /// The world.
    public var scene: Scene
    /// Built-in trajectory name (`AnalyticTrajectory.names`).
    public var trajectoryName: String
    /// Timing options of the trajectory (rest at start, segments).
    public var trajectoryOptions: TrajectoryOptions
    /// Duration, seconds (> 0).
    public var seconds: Double
    /// Seed of every random draw (biases, noise, image noise).
    public var seed: UInt64
    /// The camera rig (default: EuRoC-like mono pinhole at 20 Hz).
    public var rig: SimRig
    /// IMU options (rate 200 Hz, EuRoC noise, biases on by default).
    public var imu: IMUSimulationOptions
    /// Image effects (noise, exposure, motion blur).
    public var effects: ImageEffects
    /// Renderer options (texture resolution, edge anti-aliasing).
    public var render: RenderOptions
    /// Camera–IMU time offset, nanoseconds (Kalibr's `timeshift_cam_imu`): the image stamped t_cam
    /// shows the world at IMU/ground-truth time `t_cam + timeOffset_ns`.
    public var timeOffset_ns: Int64
    /// Time stamp of trajectory time 0, nanoseconds.
    public var startTime_ns: Int64

    public init(scene: Scene, trajectoryName: String = "handheld", trajectoryOptions: TrajectoryOptions = TrajectoryOptions(),
                seconds: Double, seed: UInt64, rig: SimRig = .euroc(), imu: IMUSimulationOptions = IMUSimulationOptions(),
                effects: ImageEffects = ImageEffects(), render: RenderOptions = RenderOptions(),
                timeOffset_ns: Int64 = 0, startTime_ns: Int64 = 1_600_000_000_000_000_000) {
        self.scene = scene; self.trajectoryName = trajectoryName; self.trajectoryOptions = trajectoryOptions
        self.seconds = seconds; self.seed = seed; self.rig = rig; self.imu = imu; self.effects = effects
        self.render = render; self.timeOffset_ns = timeOffset_ns; self.startTime_ns = startTime_ns
    }

    /// The trajectory this config describes.
    public func trajectory() throws -> AnalyticTrajectory {
        try AnalyticTrajectory.make(name: trajectoryName, scene: scene, options: trajectoryOptions, rig: rig)
    }

    /// Camera time stamps (nanoseconds): `startTime_ns + round(k · 1e9 / rate)` for every k with
    /// `k / rate ≤ seconds`.
    public func cameraTimestamps() -> [TimestampNs] {
        let rate = rig.cameras.first?.rate_hz ?? 20
        let n = Int((seconds * rate + 1e-9).rounded(.down)) + 1
        return (0..<n).map { startTime_ns + Time.nanoseconds(Double($0) / rate) }
    }

    /// Trajectory time (seconds) shown by the image stamped `t_ns`.
    public func trajectoryTime(ofImageStamped t_ns: TimestampNs) -> Double {
        Time.seconds(t_ns + timeOffset_ns - startTime_ns)
    }
}

extension SimulationConfig {
    /// The embedded default dataset of `worldtrack run`: the room scene walked through with the handheld trajectory
    /// (starting at rest), 30 s, mono 752×480 at 20 Hz, EuRoC-like IMU noise and biases, seed 1.
    public static func defaultDataset() throws -> SimulationConfig {
        SimulationConfig(scene: try Scene.builtIn(named: "room"), trajectoryName: "handheld", seconds: 30, seed: 1)
    }
}

/// Errors of the dataset writer.
public enum SimulationError: Error, CustomStringConvertible, Equatable {
    /// Bad configuration (message says what).
    case badConfig(String)
    /// The output folder exists and is not empty (and `force` was not given).
    case outputNotEmpty(String)
    /// Writing a file failed.
    case writeFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case .badConfig(let m): return m
        case .outputNotEmpty(let p): return "\(p) exists and is not empty; refusing to overwrite (use --force to replace its dataset)"
        case .writeFailed(let p, let r): return "cannot write \(p): \(r)"
        }
    }
}
