import ArgumentParser
import Foundation
import Simulation

/// `worldtrack simulate`: Write a synthetic image + IMU dataset with exact ground truth.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Write a synthetic image + IMU dataset with exact ground truth.",
        discussion: """
        Renders a scene through an EuRoC-like camera (752×480 pinhole + radial-tangential, or \
        equidistant with --fisheye; cam1 11 cm to the side with --stereo) moving on a smooth analytic \
        trajectory, synthesises the IMU at 200 Hz as the exact derivative of that trajectory (EuRoC \
        ADIS16448 noise and random-walk biases unless --no-noise), and writes the ASL layout: \
        mav0/cam0 (and cam1), mav0/imu0, mav0/state_groundtruth_estimate0 and scene.json (planes, \
        measurement pairs, run facts). The same --seed gives byte-identical files.

        Scenes: room (furnished 6×5×2.7 m room), courtyard (open, façades, benches), or a JSON file \
        with scene.json's schema. Trajectories: handheld (walk around, 0.5–1.2 m/s, head bob, \
        looking around), orbit (circle a table looking at it). By default the body rests for 2 s and \
        then ramps smoothly into motion.

        Examples:
          worldtrack simulate --scene room --trajectory handheld --seconds 30 --seed 1 --out /tmp/room
          worldtrack simulate --scene courtyard --trajectory orbit --seconds 20 --stereo --out /tmp/yard
          worldtrack simulate --scene my_scene.json --trajectory handheld --seconds 10 --fisheye --rate 30 --out /tmp/fe
          worldtrack simulate --scene room --trajectory handheld --seconds 25 --still-at 8 --pure-rotation-at 14 --shake-at 20 --out /tmp/hard
        """)

    @Option(help: "Scene: room, courtyard, or a path to a scene .json file.")
    var scene: String = "room"

    @Option(help: "Trajectory: handheld or orbit.")
    var trajectory: String = "handheld"

    @Option(help: "Duration in seconds (> 0).")
    var seconds: Double

    @Option(help: "Random seed (IMU biases and noise, image noise).")
    var seed: UInt64 = 1

    @Flag(help: "Also render cam1 (stereo, ≈ 11 cm baseline).")
    var stereo = false

    @Flag(help: "Use an equidistant (fisheye) lens instead of pinhole + radial-tangential.")
    var fisheye = false

    @Flag(help: "Start in motion instead of resting for 2 s first.")
    var startMoving = false

    @Option(help: "Camera frame rate in Hz: 20 or 30.")
    var rate: Int = 20

    @Flag(help: "Perfect sensors: no IMU noise or biases, no image noise or exposure changes.")
    var noNoise = false

    @Option(help: "Camera–IMU time offset in milliseconds: the image stamped t shows the world at IMU time t + offset.")
    var timeOffsetMs: Double = 0

    @Flag(help: "Motion blur: average 5 sub-frame renders over a 12 ms exposure (5× slower).")
    var motionBlur = false

    @Option(help: "Insert a 3 s still segment (stop, hold, go) starting at this time, seconds.")
    var stillAt: Double?

    @Option(help: "Insert a 4 s pure-rotation segment (translation stops, rotation goes on) at this time, seconds.")
    var pureRotationAt: Double?

    @Option(help: "Insert a 2 s fast-shake segment at this time, seconds.")
    var shakeAt: Double?

    @Option(help: "Image size WIDTHxHEIGHT (intrinsics scaled), e.g. 376x240 for quick runs.")
    var size: String?

    @Option(help: "Output folder (must be empty or absent).")
    var out: String

    @Flag(help: "Replace the dataset in a non-empty output folder.")
    var force = false

    func validate() throws {
        guard seconds > 0, seconds.isFinite else { throw ValidationError("--seconds must be > 0 (got \(seconds))") }
        guard rate == 20 || rate == 30 else { throw ValidationError("--rate must be 20 or 30 (got \(rate))") }
        guard timeOffsetMs.isFinite, abs(timeOffsetMs) < 1000 else { throw ValidationError("--time-offset-ms must be within ±1000") }
        for (name, v) in [("--still-at", stillAt), ("--pure-rotation-at", pureRotationAt), ("--shake-at", shakeAt)] {
            if let v, !(v >= 0 && v.isFinite) { throw ValidationError("\(name) must be ≥ 0 (got \(v))") }
        }
        if let size { _ = try parseSize(size) }
    }

    private func parseSize(_ s: String) throws -> (Int, Int) {
        let parts = s.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] >= 16, parts[1] >= 16, parts[0] <= 4096, parts[1] <= 4096 else {
            throw ValidationError("--size must be WIDTHxHEIGHT between 16 and 4096 (got '\(s)')")
        }
        return (parts[0], parts[1])
    }

    func run() throws {
        let world: Scene
        do {
            if scene.lowercased().hasSuffix(".json") || scene.contains("/") {
                world = try Scene.load(jsonFile: scene)
            } else {
                world = try Scene.builtIn(named: scene)
            }
        } catch let e as SceneError {
            throw CLIError.badInput(e.description)
        }
        guard AnalyticTrajectory.names.contains(trajectory.lowercased()) else {
            throw CLIError.badInput(TrajectoryError.unknown(trajectory).description)
        }
        var rig = SimRig.euroc(stereo: stereo, fisheye: fisheye, rateHz: Double(rate))
        if let size {
            let (w, h) = try parseSize(size)
            rig = rig.scaled(width: w, height: h)
        }
        var opts = TrajectoryOptions(startMoving: startMoving)
        if let s = stillAt { opts.stillSegment = TimeSegment(start: s, duration: 3) }
        if let s = pureRotationAt { opts.pureRotationSegment = TimeSegment(start: s, duration: 4) }
        if let s = shakeAt { opts.fastShakeSegment = TimeSegment(start: s, duration: 2) }
        var effects = ImageEffects(motionBlur: motionBlur)
        var imu = ImuSimulationOptions()
        if noNoise {
            effects.noiseSigma = 0
            effects.exposureVariation = false
            imu = .perfect
        }
        let config = SimulationConfig(scene: world, trajectoryName: trajectory, trajectoryOptions: opts, seconds: seconds,
                                      seed: seed, rig: rig, imu: imu, effects: effects,
                                      timeOffsetNs: Int64((timeOffsetMs * 1e6).rounded()))
        let err = FileHandle.standardError
        err.write(Data("simulate: scene \(world.name), trajectory \(trajectory), \(seconds) s, seed \(seed) → \(out)\n".utf8))
        let started = Date()
        do {
            let summary = try DatasetWriter.write(config, to: out, force: force) { done, total in
                if done == total || done % 20 == 0 {
                    let el = Date().timeIntervalSince(started)
                    err.write(Data(String(format: "\rframe %d/%d  (%.1f frames/s)", done, total, Double(done) / max(el, 1e-6)).utf8))
                    if done == total { err.write(Data("\n".utf8)) }
                }
            }
            err.write(Data(String(format: "wrote %d frames × %d camera(s), %d IMU samples in %.1f s\n",
                                  summary.framesPerCamera, rig.cameras.count, summary.imuSamples,
                                  Date().timeIntervalSince(started)).utf8))
        } catch let e as SimulationError {
            switch e {
            case .badConfig, .outputNotEmpty: throw CLIError.badInput(e.description)
            case .writeFailed: throw CLIError.failure(e.description)
            }
        } catch let e as TrajectoryError {
            throw CLIError.badInput(e.description)
        }
    }
}
