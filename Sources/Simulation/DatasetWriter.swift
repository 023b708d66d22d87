import Foundation
import Geometry
import Imaging
import Sensors

/// What a simulation run wrote.
public struct SimulationSummary: Sendable {
    /// Output folder.
    public var directory: String
    /// Images written per camera.
    public var framesPerCamera: Int
    /// IMU samples written.
    public var imuSamples: Int
    /// Wall-clock seconds spent rendering and writing images.
    public var image_s: Double
}

/// Writes a simulated dataset in the ASL/EuRoC layout:
///
/// ```
/// DIR/mav0/body.yaml
/// DIR/mav0/cam0/{sensor.yaml, data.csv, data/<t_ns>.png}   (+ cam1 with stereo)
/// DIR/mav0/imu0/{sensor.yaml, data.csv}
/// DIR/mav0/state_groundtruth_estimate0/{sensor.yaml, data.csv}   (p, q(w,x,y,z), v, b_w, b_a at the IMU rate)
/// DIR/scene.json                                              (scene geometry, measurement pairs, run facts)
/// ```
/// Numbers are written with Swift's shortest round-trip formatting, so ground truth is exact.
public enum DatasetWriter {
    /// Simulates `config` and writes it into `directory`. Refuses a non-empty existing folder unless
    /// `force` (then only the dataset's own `mav0/` and `scene.json` are replaced). `progress` is called
    /// after each frame with (frames done, frames total).
    @discardableResult
    public static func write(_ config: SimulationConfig, to directory: String, force: Bool = false,
                             progress: ((Int, Int) -> Void)? = nil) throws -> SimulationSummary {
        guard config.seconds > 0, config.seconds.isFinite else {
            throw SimulationError.badConfig("seconds must be > 0 (got \(config.seconds))")
        }
        guard !config.rig.cameras.isEmpty else { throw SimulationError.badConfig("the rig has no camera") }
        let trajectory = try config.trajectory()
        try prepareOutput(directory, force: force)
        let fm = FileManager.default
        let mav = directory + "/mav0"
        func mkdir(_ p: String) throws {
            do { try fm.createDirectory(atPath: p, withIntermediateDirectories: true) } catch {
                throw SimulationError.writeFailed(path: p, reason: "\(error.localizedDescription)")
            }
        }
        func write(_ text: String, _ path: String) throws {
            do { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) } catch {
                throw SimulationError.writeFailed(path: path, reason: "\(error.localizedDescription)")
            }
        }
        try mkdir(mav)

        // IMU and ground truth.
        let imu = IMUSynthesizer.synthesize(trajectory: trajectory, seconds: config.seconds, startTime_ns: config.startTime_ns,
                                            options: config.imu, seed: config.seed)
        try mkdir(mav + "/imu0")
        try write(ASLText.imuYAML(config.imu), mav + "/imu0/sensor.yaml")
        try write(ASLText.imuCSV(imu.samples), mav + "/imu0/data.csv")
        try mkdir(mav + "/state_groundtruth_estimate0")
        try write(ASLText.groundTruthYAML, mav + "/state_groundtruth_estimate0/sensor.yaml")
        try write(TrajectoryFile.formatASLGroundTruth(imu.groundTruth), mav + "/state_groundtruth_estimate0/data.csv")
        try write(ASLText.bodyYAML, mav + "/body.yaml")

        // Scene description.
        var options: [String: String] = [
            "cameras": "\(config.rig.cameras.count)",
            "cameraModel": config.rig.cameras[0].model.distortion.yamlName,
            "resolution": "\(config.rig.cameras[0].model.width)x\(config.rig.cameras[0].model.height)",
            "startMoving": "\(config.trajectoryOptions.startMoving)",
            "imuWhiteNoise": "\(config.imu.whiteNoise)", "imuBiases": "\(config.imu.biases)",
            "imageNoiseSigma": "\(config.effects.noiseSigma)", "motionBlur": "\(config.effects.motionBlur)",
            "exposureVariation": "\(config.effects.exposureVariation)",
        ]
        if let s = config.trajectoryOptions.stillSegment { options["stillSegment"] = "\(s.start)+\(s.duration)s" }
        if let s = config.trajectoryOptions.pureRotationSegment { options["pureRotationSegment"] = "\(s.start)+\(s.duration)s" }
        if let s = config.trajectoryOptions.fastShakeSegment { options["fastShakeSegment"] = "\(s.start)+\(s.duration)s" }
        let info = SimulationInfo(trajectory: trajectory.name, seed: config.seed, seconds: config.seconds,
                                  cameraRate_hz: config.rig.cameras[0].rate_hz, imuRate_hz: config.imu.rate_hz,
                                  startTime_ns: config.startTime_ns, timeOffset_ns: config.timeOffset_ns, options: options)
        do {
            try config.scene.jsonData(simulation: info).write(to: URL(fileURLWithPath: directory + "/scene.json"))
        } catch {
            throw SimulationError.writeFailed(path: directory + "/scene.json", reason: "\(error)")
        }

        // Images.
        let start = Date()
        let stamps = config.cameraTimestamps()
        let renderer = SceneRenderer(scene: config.scene, options: config.render)
        let synth = ImageSynthesizer(renderer: renderer, effects: config.effects, seed: config.seed)
        let maps = config.rig.cameras.map { BearingMap(model: $0.model) }
        for cam in config.rig.cameras {
            try mkdir(mav + "/\(cam.name)/data")
            try write(ASLText.cameraYAML(cam), mav + "/\(cam.name)/sensor.yaml")
            try write("#timestamp [ns],filename\n" + stamps.map { "\($0),\($0).png\n" }.joined(),
                      mav + "/\(cam.name)/data.csv")
        }
        try renderFrames(stamps: stamps, times: stamps.map { config.trajectoryTime(ofImageStamped: $0) }, trajectory: trajectory,
                         cameras: config.rig.cameras, synth: synth, maps: maps, sensorFolder: mav, progress: progress)
        return SimulationSummary(directory: directory, framesPerCamera: stamps.count, imuSamples: imu.samples.count,
                                 image_s: Date().timeIntervalSince(start))
    }

    /// Throws `SimulationError.outputNotEmpty` when `directory` is a file, or a folder that is not empty and `force`
    /// is not given; changes nothing. For callers with slow work before the writing starts (fitting a scene to a
    /// recording), so that a refused output is refused first.
    public static func checkOutput(_ directory: String, force: Bool) throws {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: directory, isDirectory: &isDir) else { return }
        guard isDir.boolValue else { throw SimulationError.outputNotEmpty(directory) }
        let items = (try? fm.contentsOfDirectory(atPath: directory)) ?? []
        if !items.isEmpty && !force { throw SimulationError.outputNotEmpty(directory) }
    }

    /// Refuses an output folder that exists and is not empty (or is a file) unless `force` (`checkOutput`); with
    /// `force`, removes only a dataset's own `mav0/` and `scene.json` from it.
    static func prepareOutput(_ directory: String, force: Bool) throws {
        try checkOutput(directory, force: force)
        let items = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for own in ["mav0", "scene.json"] where items.contains(own) {
            try? FileManager.default.removeItem(atPath: directory + "/" + own)
        }
    }

    /// Renders every camera's image at each time stamp and writes `SENSORFOLDER/<cam>/data/<t_ns>.png`.
    /// Frame k of camera c shows `trajectory` at trajectory time `times[k]` through `cameras[c]`; PNGs are
    /// encoded and written on a serial queue while the next frame renders (at most 2 images in flight).
    /// `inspect` (called on that queue, in frame order) sees each image; `progress` gets (frames done, total).
    static func renderFrames(stamps: [TimestampNs], times: [Double], trajectory: any Trajectory, cameras: [CameraCalibration],
                             synth: ImageSynthesizer, maps: [BearingMap], sensorFolder mav: String,
                             inspect: ((_ frame: Int, _ camera: Int, GrayImage) -> Void)? = nil,
                             progress: ((Int, Int) -> Void)?) throws {
        let writer = DispatchQueue(label: "worldtrack.simulate.png")
        let inFlight = DispatchSemaphore(value: 2)
        let failure = FailureBox()
        for (k, t_ns) in stamps.enumerated() {
            if let e = failure.error { throw e }
            let t = times[k]
            for (c, cam) in cameras.enumerated() {
                let img = synth.image(trajectory: trajectory, t: t, T_B_C: cam.T_B_C, map: maps[c], frameIndex: k, cameraIndex: c)
                let path = mav + "/\(cam.name)/data/\(t_ns).png"
                inFlight.wait()
                writer.async {
                    defer { inFlight.signal() }
                    do { try ImageCodec.writePNG(img, to: path) } catch {
                        failure.set(SimulationError.writeFailed(path: path, reason: "\(error)"))
                    }
                    inspect?(k, c, img)
                }
            }
            progress?(k + 1, stamps.count)
        }
        writer.sync {}
        if let e = failure.error { throw e }
    }
}

/// First error raised on the writer queue.
private final class FailureBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Error?
    var error: Error? { lock.lock(); defer { lock.unlock() }; return stored }
    func set(_ e: Error) { lock.lock(); if stored == nil { stored = e }; lock.unlock() }
}
