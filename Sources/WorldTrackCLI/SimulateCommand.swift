import ArgumentParser
import Evaluation
import Foundation
import Sensors
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
          worldtrack simulate --scene room --trajectory handheld --seconds 30 \\
              --seed 1 --out /tmp/room
          worldtrack simulate --scene courtyard --trajectory orbit --seconds 20 \\
              --stereo --out /tmp/yard
          worldtrack simulate --scene my_scene.json --trajectory handheld \\
              --seconds 10 --fisheye --rate 30 --out /tmp/fe
          worldtrack simulate --scene room --trajectory handheld --seconds 25 \\
              --still-at 8 --pure-rotation-at 14 --shake-at 20 --out /tmp/hard

        From a recording (--from-recording DATASET): renders along the recording's ground truth \
        instead of an analytic trajectory, with the recording's camera calibration (cam0's sensor.yaml; \
        cam1's with --stereo) and its real IMU: T_W_C(t) = T_W_B(t) · T_B_C at the ground-truth time \
        stamps themselves, subsampled to cam0's rate_hz, over the span covered by both ground truth and \
        IMU (--start S skips S seconds of it, --seconds S keeps S seconds; default all). The IMU rows \
        are copied unchanged (every line byte for byte, from 1 s before the first to 1 s after the last \
        frame), imu0/sensor.yaml, body.yaml and the camera sensor.yaml files as they are; the ground \
        truth in the span is written in the ASL layout. --scene room (default) or courtyard is fitted \
        around the trajectory: walls 1.5 m (courtyard façades 6 m) beyond the cameras' bounding box, \
        ceiling 1 m above the highest camera (at least 2.7 m above the floor), floor at z = 0 or 0.3 m \
        below the lowest camera if that is lower, furniture at least 0.5 m from every camera and body \
        position. A scene file is used as given. scene.json gets a "recording" section (source, span, \
        frames, T_B_C, the fit and a texture check of every image). --time-offset-ms D stamps the image \
        of the ground-truth row at t with t − D. Not with --trajectory, --rate, --size, --fisheye, \
        --start-moving or the segment options.
          worldtrack simulate --from-recording ../shared/datasets/euroc-v101-micro \\
              --stereo --out /tmp/v101
          worldtrack simulate --from-recording ../shared/datasets/euroc-v101-micro \\
              --start 10 --seconds 30 --out /tmp/v101-30s
        """)

    @Option(help: "Scene: room, courtyard, or a path to a scene .json file (with --from-recording: room and courtyard are fitted around the trajectory; a file is used as given).")
    var scene: String = "room"

    @Option(help: "Trajectory: handheld or orbit (not with --from-recording).")
    var trajectory: String?

    @Option(parsing: .unconditional, help: "Duration in seconds (> 0). Required unless --from-recording (then default: the whole recording).")
    var seconds: Double?

    @Option(help: "Render along this recording's ground truth, with its IMU rows and calibration (an ASL folder, e.g. EuRoC).")
    var fromRecording: String?

    @Option(parsing: .unconditional, help: "With --from-recording: skip this many seconds after the first usable ground-truth time.")
    var start: Double?

    @Option(help: "Random seed (IMU biases and noise, image noise).")
    var seed: UInt64 = 1

    @Flag(help: "Also render cam1 (stereo, ≈ 11 cm baseline; with --from-recording, the recording's cam1).")
    var stereo = false

    @Flag(help: "Use an equidistant (fisheye) lens instead of pinhole + radial-tangential.")
    var fisheye = false

    @Flag(help: "Start in motion instead of resting for 2 s first.")
    var startMoving = false

    @Option(help: "Camera frame rate in Hz: 20 or 30.")
    var rate: Int?

    @Flag(help: "Perfect sensors: no IMU noise or biases, no image noise or exposure changes (with --from-recording: images only).")
    var noNoise = false

    @Option(name: .customLong("time-offset-ms"), parsing: .unconditional, help: "Camera–IMU time offset in milliseconds: the image stamped t shows the world at IMU time t + offset.")
    var timeOffset_ms: Double = 0

    @Flag(help: "Motion blur: average 5 sub-frame renders over a 12 ms exposure (5× slower).")
    var motionBlur = false

    @Option(parsing: .unconditional, help: "Insert a 3 s still segment (stop, hold, go) starting at this time, seconds.")
    var stillAt: Double?

    @Option(parsing: .unconditional, help: "Insert a 4 s pure-rotation segment (translation stops, rotation goes on) at this time, seconds.")
    var pureRotationAt: Double?

    @Option(parsing: .unconditional, help: "Insert a 2 s fast-shake segment at this time, seconds.")
    var shakeAt: Double?

    @Option(help: "Image size WIDTHxHEIGHT (intrinsics scaled), e.g. 376x240 for quick runs (not with --from-recording).")
    var size: String?

    @Flag(name: .customLong("level-groundtruth"), help: "With --from-recording: level the recording's world first. Gravity is measured in the ground truth's frame from the recording's own IMU (as `eval --level-groundtruth` does; EuRoC V1_01's frame is 0.24° off), and the ground truth is turned so that it is −z. The scene is then fitted and rendered level for the real IMU, as a real room's floor and tables are, and the ground truth is written in that frame. The IMU rows are still copied byte for byte.")
    var levelGroundtruth = false

    @Option(name: .customLong("arrangement-seed"), help: "With --from-recording and a fitted room or courtyard: arrange the same furniture otherwise and draw other textures, from this seed (placing order, starting angle around the trajectory, textures; the same clearances). Another room around the same flight, to check a result on a room it was not tuned on. Default: the built-in arrangement.")
    var arrangementSeed: UInt64?

    @Option(help: "Output folder (must be empty or absent).")
    var out: String

    @Flag(help: "Replace the dataset in a non-empty output folder.")
    var force = false

    private func parseSize(_ s: String) throws -> (Int, Int) {
        let parts = s.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] >= 16, parts[1] >= 16, parts[0] <= 4096, parts[1] <= 4096 else {
            throw CLIError.badInput("--size must be WIDTHxHEIGHT between 16 and 4096 (got '\(s)')")
        }
        return (parts[0], parts[1])
    }

    /// Checks the numbers and combinations; bad input is exit 2 with a message naming the option.
    func checkArguments() throws {
        if let seconds, !(seconds > 0 && seconds.isFinite) {
            throw CLIError.badInput("--seconds must be a number > 0 (got \(seconds))")
        }
        if let start, !(start >= 0 && start.isFinite) { throw CLIError.badInput("--start must be a number ≥ 0 (got \(start))") }
        guard timeOffset_ms.isFinite, abs(timeOffset_ms) < 1000 else {
            throw CLIError.badInput("--time-offset-ms must be within ±1000 (got \(timeOffset_ms))")
        }
        let segments = [("--still-at", stillAt), ("--pure-rotation-at", pureRotationAt), ("--shake-at", shakeAt)]
        for (name, v) in segments {
            if let v, !(v >= 0 && v.isFinite) { throw CLIError.badInput("\(name) must be a number ≥ 0 (got \(v))") }
        }
        if fromRecording != nil {
            var unsupported: [String] = []
            if trajectory != nil { unsupported.append("--trajectory") }
            if rate != nil { unsupported.append("--rate") }
            if size != nil { unsupported.append("--size") }
            if fisheye { unsupported.append("--fisheye") }
            if startMoving { unsupported.append("--start-moving") }
            unsupported += segments.filter { $0.1 != nil }.map(\.0)
            if !unsupported.isEmpty {
                throw CLIError.badInput("\(unsupported.joined(separator: ", ")) cannot be used with --from-recording: the trajectory, camera model and rate are the recording's")
            }
        } else {
            if start != nil { throw CLIError.badInput("--start is only for --from-recording") }
            if levelGroundtruth { throw CLIError.badInput("--level-groundtruth is only for --from-recording (a simulated world is level)") }
            if arrangementSeed != nil { throw CLIError.badInput("--arrangement-seed is only for --from-recording (it arranges a fitted room)") }
            guard let seconds else { throw CLIError.badInput("--seconds is required (a number > 0) unless --from-recording is given") }
            if let rate, rate != 20 && rate != 30 { throw CLIError.badInput("--rate must be 20 or 30 (got \(rate))") }
            for (name, v) in segments {
                if let v, v >= seconds {
                    throw CLIError.badInput("\(name) \(v) is not before the end of the \(seconds) s sequence (the segment would be dropped); use a time < --seconds")
                }
            }
            if let size { _ = try parseSize(size) }
        }
    }

    func run() throws {
        try checkArguments()
        if let fromRecording {
            try runFromRecording(fromRecording)
            return
        }
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
        let trajectory = self.trajectory ?? "handheld"
        guard AnalyticTrajectory.names.contains(trajectory.lowercased()) else {
            throw CLIError.badInput(TrajectoryError.unknown(trajectory).description)
        }
        let seconds = self.seconds ?? 0
        var rig = SimRig.euroc(stereo: stereo, fisheye: fisheye, rate_hz: Double(rate ?? 20))
        if let size {
            let (w, h) = try parseSize(size)
            rig = rig.scaled(width: w, height: h)
        }
        var opts = TrajectoryOptions(startMoving: startMoving)
        if let s = stillAt { opts.stillSegment = TimeSegment(start: s, duration: 3) }
        if let s = pureRotationAt { opts.pureRotationSegment = TimeSegment(start: s, duration: 4) }
        if let s = shakeAt { opts.fastShakeSegment = TimeSegment(start: s, duration: 2) }
        var effects = ImageEffects(motionBlur: motionBlur)
        var imu = IMUSimulationOptions()
        if noNoise {
            effects.noiseSigma = 0
            effects.exposureVariation = false
            imu = .perfect
        }
        let config = SimulationConfig(scene: world, trajectoryName: trajectory, trajectoryOptions: opts, seconds: seconds,
                                      seed: seed, rig: rig, imu: imu, effects: effects,
                                      timeOffset_ns: Int64((timeOffset_ms * 1e6).rounded()))
        let err = FileHandle.standardError
        err.write(Data("simulate: scene \(world.name), trajectory \(trajectory), \(seconds) s, seed \(seed) → \(out)\n".utf8))
        let started = Date()
        do {
            let summary = try DatasetWriter.write(config, to: out, force: force, progress: Self.progressPrinter(started))
            err.write(Data(String(format: "wrote %d frames × %d camera(s), %d IMU samples in %.1f s\n",
                                  summary.framesPerCamera, rig.cameras.count, summary.imuSamples,
                                  Date().timeIntervalSince(started)).utf8))
        } catch let e as SimulationError {
            throw Self.cliError(e)
        } catch let e as TrajectoryError {
            throw CLIError.badInput(e.description)
        }
    }

    /// `simulate --from-recording`: the recording's ground truth, IMU and calibration, a rendered scene.
    private func runFromRecording(_ path: String) throws {
        let err = FileHandle.standardError
        let started = Date()
        do {
            // Refused before the recording is read and the scene fitted (a few seconds for the full flight).
            try DatasetWriter.checkOutput(out, force: force)
            var recording = try Recording(path: path)
            if levelGroundtruth {
                let gravity: GroundTruthGravity
                do {
                    gravity = try GroundTruthGravity.measure(groundTruth: recording.groundTruth, imu: try ASLDataset(path: path).imu.samples)
                } catch let failure as GroundTruthGravity.Failure {
                    throw CLIError.badInput("--level-groundtruth: \(failure.description)")
                }
                recording = recording.withWorldRotated(by: gravity.R_L_W)
                err.write(Data("simulate: --level-groundtruth: \(gravity.summary); the ground truth is turned by \(String(format: "%.3f", gravity.tilt_rad * 180 / .pi))° so that gravity is −z\n".utf8))
            }
            let sceneChoice: RecordingScene
            if scene.lowercased().hasSuffix(".json") || scene.contains("/") {
                if arrangementSeed != nil {
                    throw CLIError.badInput("--arrangement-seed arranges a fitted room or courtyard; a scene file is used as given")
                }
                sceneChoice = .given(try Scene.load(jsonFile: scene), source: scene)
            } else if Scene.builtInNames.contains(scene.lowercased()) {
                var fitOptions: SceneFitOptions? = nil
                if let arrangementSeed {
                    fitOptions = scene.lowercased() == "courtyard" ? .courtyard : .room
                    fitOptions?.arrangementSeed = arrangementSeed
                }
                sceneChoice = .fitted(layout: scene.lowercased(), options: fitOptions)
            } else {
                throw SceneError.unknownScene(scene)
            }
            var effects = ImageEffects(motionBlur: motionBlur)
            if noNoise { effects.noiseSigma = 0; effects.exposureVariation = false }
            let config = RecordingSimulationConfig(recording: recording, scene: sceneChoice, stereo: stereo,
                                                   start_s: start ?? 0, seconds: seconds, seed: seed, effects: effects,
                                                   timeOffset_ns: Int64((timeOffset_ms * 1e6).rounded()))
            let (plan, cameras, world, fit, _) = try RecordingDatasetWriter.prepare(config)
            let span_s = Double(plan.groundTruthTimes.last! - plan.groundTruthTimes.first!) * 1e-9
            err.write(Data(String(format: "simulate: from recording %@: %d frames × %d camera(s) over %.2f s (ground truth %lld … %lld ns), scene %@ → %@\n",
                                  path, plan.imageStamps.count, cameras.count, span_s, plan.groundTruthTimes.first!,
                                  plan.groundTruthTimes.last!, world.name, out).utf8))
            if let fit {
                err.write(Data(String(format: "simulate: fitted %@ %.2f × %.2f m, floor %@, ceiling %@; furniture: %@%@\n",
                                      fit.layout, fit.enclosureMax.x - fit.enclosureMin.x, fit.enclosureMax.y - fit.enclosureMin.y,
                                      fit.floorRule, fit.ceilingZ.map { String(format: "z = %.2f m", $0) } ?? "open",
                                      fit.furniture.map { String(format: "%@ (%.2f m clear)", $0.name, $0.clearance) }.joined(separator: ", "),
                                      fit.notPlaced.isEmpty ? "" : "; not placed (no room clear of the trajectory): " + fit.notPlaced.joined(separator: ", ")).utf8))
            }
            if plan.skippedSlots > 0 {
                err.write(Data("simulate: \(plan.skippedSlots) frame slot(s) at the camera rate have no ground-truth row (gaps); those frames are left out\n".utf8))
            }
            let summary = try RecordingDatasetWriter.write(config, to: out, force: force, progress: Self.progressPrinter(started))
            if let t = summary.info.textureCheck {
                err.write(Data(String(format: "texture check: %d/%d images textured (≥ %d FAST corners, ≥ %d of 16 cells); corners per image min %d, median %d (fewest: %@ at %lld ns)\n",
                                      t.texturedImages, t.images, t.minimumCornersApplied, t.options.minimumCells,
                                      t.minCorners, t.medianCorners, t.worstCamera, t.worstStamp_ns).utf8))
                if t.texturedImages < t.images {
                    err.write(Data("simulate: warning: \(t.images - t.texturedImages) image(s) see little texture; see scene.json's recording.textureCheck\n".utf8))
                }
            }
            err.write(Data(String(format: "wrote %d frames × %d camera(s), %d IMU rows (copied unchanged), %d ground-truth rows in %.1f s\n",
                                  summary.framesPerCamera, summary.cameras, summary.imuRows, summary.groundTruthRows,
                                  Date().timeIntervalSince(started)).utf8))
        } catch let e as SimulationError {
            throw Self.cliError(e)
        } catch let e as RecordingError {
            throw CLIError.badInput(e.description)
        } catch let e as SceneError {
            throw CLIError.badInput(e.description)
        } catch let e as TrajectoryFileError {
            throw CLIError.badInput(e.description)
        }
    }

    private static func cliError(_ e: SimulationError) -> CLIError {
        switch e {
        case .badConfig, .outputNotEmpty: return CLIError.badInput(e.description)
        case .writeFailed: return CLIError.failure(e.description)
        }
    }

    /// Progress on stderr about every 2 s, and at the end: frames done / total, rate, time left.
    private static func progressPrinter(_ started: Date) -> (Int, Int) -> Void {
        let err = FileHandle.standardError
        var last = Date.distantPast
        return { done, total in
            let now = Date()
            guard done == total || now.timeIntervalSince(last) >= 2 else { return }
            last = now
            let el = now.timeIntervalSince(started)
            let rate = Double(done) / max(el, 1e-6)
            let left = rate > 0 ? Double(total - done) / rate : 0
            err.write(Data(String(format: "frame %d/%d  (%.1f frames/s, %.0f s left)\n", done, total, rate, left).utf8))
        }
    }
}
