import ArgumentParser
import Consumers
import Estimation
import Foundation
import Geometry
import OptionsFile
import Pipeline
import Sensors

/// `worldtrack run`: track a dataset and stream one JSON record per frame on stdout.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Track a dataset: pose every frame, streamed as JSON Lines.",
        discussion: """
        Runs the whole pipeline — feature frontend, visual-inertial estimator, planes and anchors, \
        consumers — over an ASL/EuRoC dataset and writes one JSON object per line on stdout: a \
        `frame` record per image (tracking state, T_world_camera, body pose, intrinsics, features, \
        anchors in view) plus anchor and consumer records. Schema: docs/STREAM.md. Progress and \
        the summary go to stderr, so `worldtrack run … | jq` always works.

        Outputs survive: output paths are checked before the first frame (exit 2), --trajectory is \
        written as the run goes (whole lines, at least once a second), and a run that fails or is \
        stopped keeps every pose computed. Exit status: 0, 1 (failed run), 2 (bad input), 130 / 143 \
        (SIGINT / SIGTERM), 141 (stdout reader gone). Frames whose image cannot be decoded are \
        skipped with a warning and counted.

        With no DATASET, runs on the embedded default: a simulated furnished room (30 s handheld \
        walk), simulated once and cached in Datasets/cache/ (or ~/.cache/worldtrack).

        --mcap FILE records the run for Foxglove as it goes (camera images, transforms world → body → \
        cam0, trajectory, planes, anchors, landmarks, tracking state, consumer records; docs/MCAP.md).

        Consumers (--consumer, repeatable):
          burst:every=6,count=10,start=T,out=DIR  every 6th frame, 10 frames:
                                                  PNG + JSON sidecar each
          measure:taps=FILE                       tapped pixels → 3D points → lengths
          cursor[:place=T1,T2]                    screen-centre raycast; anchors
                                                  placed at T1, T2 s
          divide:tap=X,Y,at=T,pieces=N[,radius=R] cake divider: N equal cuts
                                                  on the tapped table
          object:box=X,Y,W,H,at=T[,name=N]        track an image box; its
                                                  centre in 3-D

        Examples:
          worldtrack run
          worldtrack run ../shared/datasets/euroc-v101-micro --trajectory /tmp/est.tum
          worldtrack run /tmp/room --consumer cursor:place=20 \\
              --consumer burst:every=6,count=10,out=/tmp/burst
          worldtrack run /tmp/room --stream-points --convention arkit
          worldtrack run /tmp/room --pipe 'jq -c "select(.type==\\"cursor\\")"'
          worldtrack run /tmp/room --profile --no-stream
          worldtrack run /tmp/room --start 10 --seconds 5
          worldtrack run /tmp/room --no-stream --mcap /tmp/room.mcap
        """)

    @Argument(help: "Dataset folder (ASL layout). Default: the simulated room.")
    var dataset: String?

    @Flag(help: "Track with both cameras (cam0 + cam1).")
    var stereo = false

    @Option(help: "Write the body (IMU) trajectory in TUM format to this file, as the run goes (refuses to overwrite; see --force).")
    var trajectory: String?

    @Option(parsing: .unconditional, help: "Skip the first S seconds of camera data (S ≥ 0; the run begins at the first frame at or after it, the IMU still flows from the dataset's start). --seconds, consumer times in seconds and the summary count from there.")
    var start: Double?

    @Option(help: "Process only S seconds of camera data (from the first frame, or from --start).")
    var seconds: Double?

    @Flag(help: "Do not re-observe mapped points (map reuse holds the drift; turn it off to compare).")
    var noMapReuse = false

    @Flag(name: .customLong("calibrated-imu-noise"), help: "Propagate with the IMU calibration's noise densities as given, instead of measuring the IMU's real white noise (vibration) from its samples and using it where it is larger.")
    var calibratedIMUNoise = false

    @Option(help: "Read the estimator, frontend, plane and map-reuse settings from this YAML file (`worldtrack config --defaults` prints them all); the flags below override it.")
    var config: String?

    @Option(name: .customLong("time-offset-ms"), help: "Camera–IMU time offset to start from, milliseconds: the image stamped t was taken at IMU time t + offset (|offset| ≤ 50; default 0 or the --config file's).")
    var timeOffset_ms: Double?

    @Flag(help: "Keep the camera–IMU time offset fixed at --time-offset-ms instead of estimating it (hardware-synchronised sensors).")
    var fixedTimeOffset = false

    @Flag(help: "Refine the camera–IMU mounting (camera 0's rotation and lever arm; the other cameras follow it rigidly) online, from the calibration's with a prior of 2° and 2 cm per axis. For a rig whose calibration is rough (a hand-measured mount); off by default.")
    var refineExtrinsics = false

    @Flag(help: "Pace the replay like the recording instead of running as fast as possible.")
    var realtime = false

    @Option(help: "Threads: 1 runs the stages in turn; 2 reads and decodes the next frames on one thread and tracks their features on another while the estimator updates the current one (same output; about 1.7–1.9× the frames/s on 2 cores).")
    var threads: Int = 1

    @Option(name: .customLong("consumer"), help: "Enable a consumer: NAME[:key=value,…] (repeatable).")
    var consumers: [String] = []

    @Option(help: "Feed the stream to this shell command's standard input (instead of stdout).")
    var pipe: String?

    @Flag(help: "Print per-stage timing (median, p90, p99, max per frame) to stderr at the end.")
    var profile = false

    @Option(name: .customLong("profile-frames"), help: "Write every frame's stage times (CPU ms of the tracking thread, as --profile measures them) to this CSV file at the end: t_ns, one column per stage, total_ms; for finding the slow frames (refuses to overwrite; see --force).")
    var profileFrames: String?

    @Flag(help: "Do not write the JSON-Lines stream (useful with --trajectory or --profile).")
    var noStream = false

    @Flag(help: "List in each frame record the mapped points the frame sees (`points`: persistent ids and world positions, like ARKit's rawFeaturePoints), while tracking is normal.")
    var streamPoints = false

    @Option(help: "Frame conventions of the stream's poses, points and normals: worldtrack (z-up world, OpenCV camera x right, y down, z forward; z along surface normals) or arkit (ARKit's: y-up world, camera looking down −z, y along surface normals). --trajectory stays in the dataset's frame.")
    var convention: StreamConvention = .worldtrack

    @Flag(help: "Follow each frame record with a world_input record (the world layer's exact input: poses, landmarks, calibration), so `worldtrack replay` can drive consumers from the stream without re-tracking.")
    var streamWorldInput = false

    @Flag(help: "No progress lines on stderr.")
    var quiet = false

    @Option(name: .customLong("summary-json"), help: "Write a JSON summary of the run (frames, wall time, fps, tracking states, per-stage times) to this file.")
    var summaryJSON: String?

    @Option(help: "Record the run in this MCAP file as it goes, for Foxglove (refuses to overwrite; see --force). Channels: docs/MCAP.md.")
    var mcap: String?

    @Option(name: .customLong("mcap-images"), help: "With --mcap: record every N-th frame's camera image (the dataset's PNG bytes; 1: every frame, ~0.3 MB each at 752×480; 0: none).")
    var mcapImages: Int = 2

    @Option(name: .customLong("save-map"), help: "Write the world map (map points with descriptors, keyframes, planes, user anchors; docs/WORLDMAP.md) to this file when the run ends, also when it is stopped (refuses to overwrite; see --force).")
    var saveMap: String?

    @Option(name: .customLong("load-map"), help: "Relocalise in a world map written by --save-map: the run reports limited(relocalizing) until it finds the map, then its poses, planes and anchors in the map's world frame; the map's anchors come back as anchor.added.")
    var loadMap: String?

    @Flag(help: "Allow --trajectory, --summary-json, --mcap, --save-map and --profile-frames to replace existing files.")
    var force = false

    func validate() throws {
        if let seconds, !(seconds > 0 && seconds.isFinite && seconds < 1e9) { throw ValidationError("--seconds must be > 0 (got \(seconds))") }
        guard (1...2).contains(threads) else { throw ValidationError("--threads must be 1 or 2 (got \(threads))") }
        if pipe != nil && noStream { throw ValidationError("--pipe and --no-stream contradict each other") }
        guard mcapImages >= 0 else { throw ValidationError("--mcap-images must be ≥ 0 (got \(mcapImages))") }
    }

    func run() throws {
        // A reader that goes away (`| head`, a --pipe program that exits) makes writes fail with EPIPE,
        // handled as "reader gone", instead of killing the process before it saves its outputs.
        signal(SIGPIPE, SIG_IGN)
        let log = StderrLog(quiet: quiet)
        // Here, not in validate(): a bad value is bad input (exit 2), like a start past the last frame.
        if let start, !(start.isFinite && start >= 0) {
            throw CLIError.badInput("--start \(start): must be a finite number of seconds ≥ 0 (from the dataset's first frame)")
        }

        // Every output path is checked before anything is read (exit 2 naming it).
        if noMapReuse && (saveMap != nil || loadMap != nil) {
            throw CLIError.badInput("--save-map and --load-map need map reuse: drop --no-map-reuse")
        }
        let outputs = [("--trajectory", trajectory), ("--summary-json", summaryJSON), ("--mcap", mcap), ("--save-map", saveMap), ("--profile-frames", profileFrames)].compactMap { o in o.1.map { (o.0, $0) } }
        for (option, path) in outputs { try OutputPath.checkFile(path, option: option, force: force) }
        for (i, a) in outputs.enumerated() {
            for b in outputs[(i + 1)...] where URL(fileURLWithPath: a.1).standardizedFileURL == URL(fileURLWithPath: b.1).standardizedFileURL {
                throw CLIError.badInput("\(a.0) and \(b.0) name the same file \(a.1)")
            }
        }
        let loadedMap = try loadMap.map(RunWorldMap.load)
        // Consumers check their own outputs (burst: out= must be a new or empty folder) when made.
        let consumerObjects: [any FrameConsumer]
        do { consumerObjects = try consumers.map { try ConsumerFactory.make($0, convention: convention) } } catch {
            throw CLIError.badInput("--consumer: \(error)")
        }

        let path: String
        if let dataset {
            path = dataset
        } else {
            do {
                path = try DefaultDataset.ensure { done, total in
                    if done == 1 { log.line("run: simulating the default dataset (once; cached) …") }
                    if done % 50 == 0 || done == total { log.progress("simulate: frame \(done)/\(total)") }
                }
            } catch {
                throw CLIError.failure("could not prepare the default dataset: \(error)")
            }
        }
        let data = try ASLDataset(path: path)
        for problem in data.problems { log.line("warning: \(problem)") }

        var options = PipelineOptions()
        if let config {
            do { options = try OptionsFile.read(path: config) } catch let error as OptionsFile.ReadError {
                throw CLIError.badInput(error.description)
            }
            log.line("run: settings from \(config)")
        }
        options.stereo = stereo
        options.start_s = start
        options.max_s = seconds
        options.realtime = realtime
        options.threads = threads
        options.streamPoints = streamPoints
        options.convention = convention
        options.streamWorldInput = streamWorldInput
        options.recordWorldMap = saveMap != nil
        // The flags override the configuration file only when given.
        if noMapReuse { options.mapReuse.enabled = false }
        if calibratedIMUNoise { options.estimator.state.adaptiveIMUNoise = false }
        if let timeOffset_ms {
            guard timeOffset_ms.isFinite, abs(timeOffset_ms) <= options.estimator.state.timeOffset.maxMagnitude_s * 1000 else {
                throw CLIError.badInput("--time-offset-ms \(timeOffset_ms): must be a number of milliseconds within ±\(Int(options.estimator.state.timeOffset.maxMagnitude_s * 1000))")
            }
            options.estimator.state.timeOffset.initial_s = timeOffset_ms / 1000
        }
        if fixedTimeOffset { options.estimator.state.timeOffset.estimate = false }
        if refineExtrinsics { options.estimator.state.extrinsics.estimate = true }
        do { try options.frontend.validate() } catch { throw CLIError.badInput("\(config.map { "\($0): " } ?? "")\(error)") }
        var writers: [StreamWriter] = []
        var child: Process?
        if let pipe {
            let (process, handle) = try ExternalPipe.start(command: pipe)
            child = process
            writers.append(StreamWriter(handle: handle))
        } else if !noStream {
            writers.append(StreamWriter(handle: .standardOutput))
        } else if mcap != nil {
            // --mcap records the stream's lines: they are made and go nowhere else (FileHandle.nullDevice has no
            // descriptor on Linux, so /dev/null it is).
            guard let null = FileHandle(forWritingAtPath: "/dev/null") else { throw CLIError.failure("cannot open /dev/null") }
            writers.append(StreamWriter(handle: null))
        }
        // From here on SIGINT/SIGTERM stop the run at a frame boundary, after saving (installed after the
        // --pipe program started, so that it keeps the default actions).
        StopSignal.install()
        let pipeline: TrackingPipeline
        let trajectoryFile: LineFile?
        let recorder: MCAPRecorder?
        do {
            do {
                pipeline = try TrackingPipeline(dataset: data, options: options, consumers: consumerObjects, writers: writers,
                                             worldMap: loadedMap)
            } catch let error as PipelineError {
                throw CLIError.badInput(error.description)
            }
            // The trajectory file is created now (before the first frame) and written as the run goes.
            trajectoryFile = try trajectory.map { try LineFile(path: $0, option: "--trajectory", replace: force) }
            // So is the MCAP file (its header and channels), recorded frame by frame.
            var mcapOptions = MCAPRecorder.Options()
            mcapOptions.imageEvery = mcapImages
            let cam0 = data.cameras[0]
            recorder = try mcap.map {
                try MCAPRecorder(path: $0, replace: force, camera: cam0.calibration,
                                 imagePaths: Dictionary(cam0.frames.map { ($0.t_ns, $0.path) }, uniquingKeysWith: { a, _ in a }),
                                 options: mcapOptions)
            }
            if let recorder { writers.first?.onLine = { recorder.receive($0, line: $1) } }
        } catch {
            if let child { _ = ExternalPipe.finish(child, timeout: 2) }
            throw error
        }
        try execute(pipeline, trajectoryFile: trajectoryFile, recorder: recorder, child: child, datasetPath: path,
                    frameCount: data.cameras[0].frames.count, log: log)
    }

    /// Runs the pipeline and saves what it computed however the run ends.
    private func execute(_ pipeline: TrackingPipeline, trajectoryFile: LineFile?, recorder: MCAPRecorder?, child: Process?, datasetPath path: String,
                         frameCount: Int, log: StderrLog) throws {
        trajectoryFile?.append(TrajectoryFile.tumHeader)
        trajectoryFile?.flush()

        log.line("run: \(path) (\(frameCount) frames, \(stereo ? "stereo" : "mono") + IMU)")
        var failure: Error?
        var summary: PipelineSummary?
        do {
            summary = try pipeline.run(
                progress: { p in
                    log.progress(String(format: "run: frame %d/%d  t=%.1f s  %.0f fps  %@", p.frames, p.totalFrames,
                                        p.dataset_s, Double(p.frames) / max(p.wall_s, 1e-9), p.trackingState.description))
                },
                onFrame: recorder.map { recorder in { recorder.record($0) } },
                onPose: { pose in trajectoryFile?.append(TrajectoryFile.tumLine(pose)) },
                onWarning: { log.warning($0) },
                shouldStop: {
                    trajectoryFile?.flushIfDue()
                    return StopSignal.pending != nil || trajectoryFile?.error != nil || recorder?.error != nil
                })
        } catch {
            failure = error
        }
        let result = summary ?? pipeline.summarySoFar

        // Save first, report after: the trajectory keeps every pose computed, whatever happened.
        let trajectoryError = trajectoryFile?.close()
        let mcapError = recorder?.close()
        let mapError = saveMap.flatMap { RunWorldMap.save(pipeline, to: $0, log: log) }
        let childStatus = child.map { ExternalPipe.finish($0) }
        let kept = result.map { "\($0.bodyTrajectory.count)" } ?? "0"
        let keptNote = trajectory.map { " (\($0) keeps the \(kept) poses computed)" } ?? ""
        let outcome = Self.outcome(failure: failure, signal: StopSignal.pending, trajectoryError: trajectoryError,
                                   mcapError: mcapError, childStatus: childStatus, command: pipe, frames: result?.frames ?? 0, note: keptNote)
        if let profileFrames, result != nil {
            do {
                try Data(pipeline.profiler.perFrameCSV().utf8).write(to: URL(fileURLWithPath: profileFrames))
            } catch {
                log.warning("could not write \(profileFrames): \(error.localizedDescription)")
            }
        }
        if let summaryJSON, let result {
            do {
                try RunSummaryJSON(result, dataset: path, stopped: outcome?.description, configuration: pipeline.options).write(to: summaryJSON)
            } catch {
                log.warning("could not write \(summaryJSON): \(error.localizedDescription)")
            }
        }
        if let result {
            if outcome == nil, let trajectory { log.line("run: wrote \(result.bodyTrajectory.count) body poses (TUM) to \(trajectory)") }
            if let recorder {
                let skipped = recorder.skippedImages > 0 ? "; \(recorder.skippedImages) images could not be read back" : ""
                log.line("run: recorded \(recorder.summary) in \(recorder.path)\(mcapError == nil ? "" : " (up to the error)")\(skipped)")
            }
            log.summary(result)
            if let last = result.lastEstimate { log.line(calibrationNote(last, options: pipeline.options, calibration: pipeline.dataset.cameras[0].calibration.T_B_C)) }
            if profile { Stderr.write(ProfileReport.text(result) + "\n") }
            if let loadMap { log.line(RunWorldMap.note(result, map: loadMap, firstFrame_ns: pipeline.firstFrame_ns)) }
        }
        if let outcome { throw outcome }
        if let mapError { throw CLIError.failure(mapError) }
    }

    /// The calibration the run ended with: the camera–IMU time offset, and with `--refine-extrinsics` how far camera
    /// 0's mounting moved from the calibration's.
    private func calibrationNote(_ last: EstimatorOutput, options: PipelineOptions, calibration T_B_C: SE3) -> String {
        var text = String(format: "run: camera–IMU time offset %.2f ms (%@)", last.timeOffset_s * 1000,
                          options.estimator.state.timeOffset.estimate ? "estimated" : "fixed")
        if options.estimator.state.extrinsics.estimate, let T = last.T_B_C0 {
            let dR = T_B_C.rotation.angle(to: T.rotation) * 180 / .pi
            let dp = (T.translation - T_B_C.translation) * 1000
            text += String(format: "; cam0 mounting refined by %.2f° and (%.1f, %.1f, %.1f) mm (body frame) from the calibration",
                           dR, dp.x, dp.y, dp.z)
        }
        return text
    }

    /// How a run ended, as the error `main` reports (nil: success).
    static func outcome(failure: Error?, signal: Int32?, trajectoryError: String?, mcapError: String? = nil, childStatus: Int32?,
                        command: String?, frames: Int, note: String) -> CLIError? {
        let after = "after \(frames) frame\(frames == 1 ? "" : "s")"
        if let signal {
            return .stopped("interrupted by \(StopSignal.name(signal)) \(after)\(note)", exitCode: 128 + signal)
        }
        if let trajectoryError {
            return .failure("could not write the trajectory: \(trajectoryError); stopped \(after)\(note)")
        }
        if let mcapError {
            return .failure("could not write the MCAP file: \(mcapError); stopped \(after)\(note)")
        }
        if let failure {
            if case StreamWriteError.readerGone = failure {
                guard let command, let status = childStatus else {
                    return .stopped("standard output was closed by its reader; stopped \(after)\(note)", exitCode: 141)
                }
                if status == 0 {
                    return .stopped("the --pipe command '\(command)' exited before reading the whole stream; stopped \(after)\(note)", exitCode: 141)
                }
                let message = ExternalPipe.describe(command: command, status: status) + "; stopped \(after)\(note)"
                return status == 127 || status == 126 ? .badInput(message) : .failure(message)
            }
            if let failure = failure as? StreamWriteError {
                return .failure("could not write the stream: \(failure); stopped \(after)\(note)")
            }
            if let failure = failure as? PipelineError { return .badInput("\(failure.description); stopped \(after)\(note)") }
            if let failure = failure as? ConsumerError { return .badInput("consumer: \(failure.description); stopped \(after)\(note)") }
            return .failure("\(failure); stopped \(after)\(note)")
        }
        if let command, let status = childStatus, status != 0 {
            let message = ExternalPipe.describe(command: command, status: status) + note
            return status == 127 || status == 126 ? .badInput(message) : .failure(message)
        }
        return nil
    }
}
