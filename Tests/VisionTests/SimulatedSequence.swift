import Foundation
import Geometry
import Imaging
import Sensors
import Simulation
@testable import Vision

/// A short simulated camera sequence rendered in memory, with exact poses: the truth for tracker tests.
struct SimulatedSequence {
    let scene: Scene
    let rig: SimRig
    let trajectory: AnalyticTrajectory
    let synthesizer: ImageSynthesizer
    let maps: [BearingMap]
    let rate_hz: Double
    /// Trajectory time of frame 0, seconds.
    let startTime: Double

    /// The room (or another built-in scene) seen while walking handheld, already in motion.
    init(scene name: String = "room", trajectory trajectoryName: String = "handheld", stereo: Bool = false,
         width: Int = 752, height: Int = 480, startTime: Double = 0, effects: ImageEffects = ImageEffects(),
         rate_hz: Double = 20, seed: UInt64 = 1) throws {
        scene = try Scene.builtIn(named: name)
        var rig = SimRig.euroc(stereo: stereo, rate_hz: rate_hz)
        if width != 752 || height != 480 { rig = rig.scaled(width: width, height: height) }
        self.rig = rig
        self.trajectory = try AnalyticTrajectory.make(name: trajectoryName, scene: scene,
                                                 options: TrajectoryOptions(startMoving: true), rig: rig)
        synthesizer = ImageSynthesizer(renderer: SceneRenderer(scene: scene), effects: effects, seed: seed)
        maps = rig.cameras.map { BearingMap(model: $0.model) }
        self.rate_hz = rate_hz
        self.startTime = startTime
    }

    var left: CameraCalibration { rig.cameras[0] }
    var right: CameraCalibration? { rig.cameras.count > 1 ? rig.cameras[1] : nil }

    /// Trajectory time of frame k, seconds.
    func time(_ k: Int) -> Double { startTime + Double(k) / rate_hz }
    /// Time stamp of frame k, nanoseconds.
    func stamp(_ k: Int) -> TimestampNs { Time.nanoseconds(time(k)) + 1_000_000_000 }

    /// The image of camera `camera` at frame k.
    func image(_ k: Int, camera: Int = 0) -> GrayImage {
        synthesizer.image(trajectory: trajectory, t: time(k), T_B_C: rig.cameras[camera].T_B_C, map: maps[camera],
                          frameIndex: k, cameraIndex: camera)
    }

    /// The true pose of camera `camera` at frame k.
    func T_W_C(_ k: Int, camera: Int = 0) -> SE3 { trajectory.pose(at: time(k)) * rig.cameras[camera].T_B_C }

    /// The true camera rotation from frame j to frame k, `R_Ck_Cj`.
    func R_Cnew_Cold(from j: Int, to k: Int) -> SO3 { (T_W_C(k).rotation.inverse * T_W_C(j).rotation) }

    /// The first scene point on a world ray.
    func raycast(_ origin_W: Vec3, _ direction_W: Vec3) -> Vec3? {
        scene.raycast(origin_W: origin_W, direction_W: direction_W)?.point_W
    }
}
