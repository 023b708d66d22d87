import ArgumentParser
import Consumers
import Estimation
import Foundation
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

        With no DATASET, runs on the embedded default: a simulated furnished room (30 s handheld \
        walk), simulated once and cached in Datasets/cache/ (or ~/.cache/worldtrack).

        Consumers (--consumer, repeatable):
          burst:every=6,count=10,start=T,out=DIR   every 6th frame, 10 frames, PNG + JSON sidecar
          measure:taps=FILE                        tapped pixels → 3D points → lengths
          cursor[:place=T1,T2]                     screen-centre raycast; anchors placed at T1, T2 s

        Examples:
          worldtrack run
          worldtrack run ../shared/datasets/euroc-v101-micro --trajectory /tmp/est.tum
          worldtrack run /tmp/room --consumer cursor:place=20 --consumer burst:every=6,count=10,out=/tmp/burst
          worldtrack run /tmp/room --pipe 'jq -c "select(.type==\\"cursor\\")"'
          worldtrack run /tmp/room --profile --no-stream
        """)

    @Argument(help: "Dataset folder (ASL layout). Default: the simulated room.")
    var dataset: String?

    @Flag(help: "Track with both cameras (cam0 + cam1).")
    var stereo = false

    @Option(help: "Write the body (IMU) trajectory in TUM format to this file (refuses to overwrite; see --force).")
    var trajectory: String?

    @Option(help: "Process only the first S seconds of camera data.")
    var seconds: Double?

    @Flag(help: "Do not re-observe mapped points (map reuse holds the drift; turn it off to compare).")
    var noMapReuse = false

    @Flag(help: "Pace the replay like the recording instead of running as fast as possible.")
    var realtime = false

    @Option(name: .customLong("consumer"), help: "Enable a consumer: NAME[:key=value,…] (repeatable).")
    var consumers: [String] = []

    @Option(help: "Feed the stream to this shell command's standard input (instead of stdout).")
    var pipe: String?

    @Flag(help: "Print per-stage timing (median, p90, max per frame) to stderr at the end.")
    var profile = false

    @Flag(help: "Do not write the JSON-Lines stream (useful with --trajectory or --profile).")
    var noStream = false

    @Flag(help: "No progress lines on stderr.")
    var quiet = false

    @Option(help: "Write a JSON summary of the run (frames, wall time, fps, tracking states, per-stage times) to this file.")
    var summaryJson: String?

    @Flag(help: "Allow --trajectory and --summary-json to replace existing files.")
    var force = false

    func validate() throws {
        if let seconds, !(seconds > 0 && seconds.isFinite) { throw ValidationError("--seconds must be > 0 (got \(seconds))") }
        if pipe != nil && noStream { throw ValidationError("--pipe and --no-stream contradict each other") }
    }

    func run() throws {
        let log = StderrLog(quiet: quiet)
        for output in [trajectory, summaryJson].compactMap({ $0 }) where FileManager.default.fileExists(atPath: output) && !force {
            throw CLIError.badInput("\(output) exists; pass --force to replace it")
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

        let consumerObjects: [any FrameConsumer]
        do { consumerObjects = try consumers.map { try ConsumerFactory.make($0) } } catch {
            throw CLIError.badInput("--consumer: \(error)")
        }

        var writers: [StreamWriter] = []
        var child: Process?
        if let pipe {
            let (process, handle) = try ExternalPipe.start(command: pipe)
            child = process
            writers.append(StreamWriter(handle: handle))
        } else if !noStream {
            writers.append(StreamWriter(handle: .standardOutput))
        }

        var options = PipelineOptions()
        options.stereo = stereo
        options.maxSeconds = seconds
        options.realtime = realtime
        options.mapReuse.enabled = !noMapReuse
        let pipeline: TrackingPipeline
        do {
            pipeline = try TrackingPipeline(dataset: data, options: options, consumers: consumerObjects, writers: writers)
        } catch let error as PipelineError {
            throw CLIError.badInput(error.description)
        }
        log.line("run: \(path) (\(data.cameras[0].frames.count) frames, \(stereo ? "stereo" : "mono") + IMU)")
        let summary: PipelineSummary
        do {
            summary = try pipeline.run(progress: { p in
                log.progress(String(format: "run: frame %d/%d  t=%.1f s  %.0f fps  %@", p.frames, p.totalFrames,
                                    p.datasetSeconds, Double(p.frames) / max(p.wallSeconds, 1e-9), p.trackingState.description))
            })
        } catch let error as PipelineError {
            throw CLIError.badInput(error.description)
        } catch {
            throw CLIError.failure("\(error)")
        }
        if let child { try ExternalPipe.finish(child, writer: writers.first) }

        if let trajectory {
            do { try TrajectoryFile.writeTUM(summary.bodyTrajectory, to: trajectory) } catch {
                throw CLIError.failure("could not write \(trajectory): \(error)")
            }
            log.line("run: wrote \(summary.bodyTrajectory.count) body poses (TUM) to \(trajectory)")
        }
        if let summaryJson {
            do { try RunSummaryJSON(summary, dataset: path).write(to: summaryJson) } catch {
                throw CLIError.failure("could not write \(summaryJson): \(error)")
            }
        }
        log.summary(summary)
        if profile { FileHandle.standardError.write(Data((ProfileReport.text(summary) + "\n").utf8)) }
    }
}
