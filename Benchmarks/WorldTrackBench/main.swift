// worldtrack-bench: per-stage latency, throughput and memory of the whole pipeline on a release build.
//
//   swift run -c release worldtrack-bench                 # default datasets, table on stdout
//   swift run -c release worldtrack-bench --json out.json # also the figures as JSON
//   swift run -c release worldtrack-bench --long-run      # plus the 10-minute memory check
import ArgumentParser
import Foundation
import Imaging
import OptionsFile
import Pipeline
import Sensors
import Simulation
import WorldTrackCLI

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worldtrack-bench",
        abstract: "Benchmark the WorldTrack pipeline: per-stage time per frame, frames per second on one core, peak memory.",
        discussion: """
        Runs `worldtrack run`'s pipeline (decode → frontend → propagation → update → map reuse → planes → \
        consumers) on each dataset: one warm-up run that is not counted, then --repeat timed runs. \
        OpenCV is held to one thread and the timed runs use one pipeline thread, so the figures are per core: \
        stage times are CPU time of the pipeline's thread, which other processes' load does not inflate \
        (the × real time figure is wall-clock). Per stage it prints the median, p90, p99 and max time per frame (the median over the repeats of \
        each run's figure, max over all), the whole pipeline's frames per second, and the process's \
        peak resident memory. It then times --repeat runs with `threads = 2` (the next frames decoded on \
        one thread and tracked on another while the estimator updates the current one) and prints the wall-clock \
        frames/s with 1 and 2 threads (--no-thread-comparison skips them); plane detection always runs on \
        its own worker (the `planeWorker` row, not in the total), and so does a start in motion's dynamic \
        initialisation (the `initWorker` row).

        Default datasets: the simulated room of `worldtrack run` (made and cached on first use) and, when \
        ../shared/datasets/euroc-v101-micro is present, that excerpt and the V1_01 sequence re-rendered \
        along its ground truth with its real IMU (`simulate --from-recording`, fitted room; cached), \
        tracked mono and stereo: --recording-seconds S of it (default 30; 0 = all 145 s). Build in \
        release mode: debug figures mean nothing.

        --long-run simulates a 10-minute handheld sequence at 376×240 (cached) and checks that the \
        resident memory stops growing: growth between minute 2 and minute 10 must stay at or under 5 %.
        """)

    @Option(name: .customLong("dataset"), help: "Dataset to benchmark (repeatable). Default: the simulated room and EuRoC micro.")
    var datasets: [String] = []

    @Option(help: "Timed runs per dataset (after one warm-up run).")
    var `repeat`: Int = 3

    @Option(help: "Frames skipped at the start of each run before timing (filter start-up).")
    var warmupFrames: Int = 20

    @Option(help: "Also write the figures as JSON to this file.")
    var json: String?

    @Flag(help: "Run the 10-minute memory-growth check as well.")
    var longRun = false

    @Option(help: "Minutes of the long-run sequence.")
    var longRunMinutes: Double = 10

    @Option(help: "Frames for the frontend-only benchmark (0 skips it).")
    var frontendFrames: Int = 300

    @Option(help: "Frames for the floor benchmark (PNG decode, one pyramid, KLT alone; 0 skips it).")
    var floorFrames: Int = 200

    @Flag(help: "Skip the 2-thread runs (wall-clock frames/s with 1 and 2 threads).")
    var noThreadComparison = false

    @Option(help: "Seconds of the from-recording V1_01 sequence to benchmark (0 = the whole 145 s).")
    var recordingSeconds: Double = 30

    @Option(name: .customLong("world"), help: ArgumentHelp(
        "Instead of timing: check the world layer on this rendered dataset (repeatable; needs its scene.json): "
            + "measurement taps of known length planned from the scene, tracked mono and stereo, the final horizontal planes "
            + "(phantoms, heights; through the ground truth as given and, where the recording's IMU measures gravity, "
            + "through the ground truth levelled by it, which takes a tilt of the ground truth's own frame out of the "
            + "heights), the horizontal planes shown during the run (once a second: phantoms, worst height in the "
            + "scene's frame and against the camera) and the vertical ones, final and during the run (mixed: on no one surface; "
            + "turned: normal more than 10° off).",
        valueName: "DATASET"))
    var worldDatasets: [String] = []

    @Option(help: "Folder for the world check's taps files (default /tmp/worldtrack-world-check).")
    var worldOut: String = "/tmp/worldtrack-world-check"

    @Option(help: "World check: only this mode (mono or stereo; default both).")
    var worldMode: String?

    @Flag(help: "World check: without the tap checks and the horizontal-plane concentration test (the behaviour before them).")
    var worldBaseline = false

    @Option(help: ArgumentHelp(
        "World check: track with the settings of this YAML file (as `worldtrack run --config`; `worldtrack config --defaults` "
            + "prints them all), to compare settings on the same taps. Default: the pipeline's defaults.",
        valueName: "FILE"))
    var config: String?

    func validate() throws {
        guard `repeat` >= 1 else { throw ValidationError("--repeat must be ≥ 1") }
        guard recordingSeconds >= 0, recordingSeconds.isFinite else { throw ValidationError("--recording-seconds must be ≥ 0") }
        guard longRunMinutes >= 3 else { throw ValidationError("--long-run-minutes must be ≥ 3 (growth is measured from minute 2)") }
    }

    func run() throws {
        try OpenCVRuntime.setThreadCount(1)
        if !worldDatasets.isEmpty { return try runWorldCheck() }
        var report = BenchReport(machine: MachineInfo.current(), repeat: `repeat`, warmupFrames: warmupFrames)
        var targets = datasets.map { (path: $0, stereo: false) }
        if targets.isEmpty {
            log("bench: preparing the default simulated dataset (cached after the first time) …")
            targets.append((try DefaultDataset.ensure(), false))
            let euroc = FileManager.default.currentDirectoryPath + "/../shared/datasets/euroc-v101-micro"
            if FileManager.default.fileExists(atPath: euroc + "/mav0") { targets.append((euroc, false)) } else {
                log("bench: ../shared/datasets/euroc-v101-micro is absent; skipping the real-data benchmark")
            }
            if let rendered = try RecordingBenchmarkDataset.ensure(recording: euroc, seconds: recordingSeconds > 0 ? recordingSeconds : nil, log: log) {
                targets.append((rendered, false))
                targets.append((rendered, true))
            }
        }
        for (path, stereo) in targets {
            let result = try PipelineBenchmark.run(path: path, stereo: stereo, repeats: `repeat`, warmupFrames: warmupFrames,
                                                   compareThreads: !noThreadComparison, log: log)
            report.datasets.append(result)
            print(result.table())
            print("")
        }
        if frontendFrames > 0, let first = targets.first?.path {
            print("frontend only, on \(first):")
            let f = runFrontendBenchmark(datasetPath: first, frames: frontendFrames)
            report.frontendOnly = FrontendFigures(dataset: first, description: f.description)
            print("")
        }
        if floorFrames > 0 {
            for path in Set(targets.map(\.path)).sorted() {
                let floor = try FloorFigures.run(datasetPath: path, frames: floorFrames)
                report.floors.append(floor)
                print(floor)
            }
            print("")
        }
        if longRun {
            let growth = try MemoryGrowthCheck.run(minutes: longRunMinutes, log: log)
            report.longRun = growth
            print(growth.text())
        }
        report.peakResidentMiB = ProcessMemory.peakResidentMiB()
        print(String(format: "peak resident memory of the benchmark process: %.1f MiB", report.peakResidentMiB ?? .nan))
        if let json {
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys]
            try enc.encode(report).write(to: URL(fileURLWithPath: json))
            log("bench: wrote \(json)")
        }
        if let growth = report.longRun, !growth.passed { throw ExitCode(1) }
    }
}

extension BenchCommand {
    /// `--world`: plan the taps, track mono and stereo, print the scores (and `--json`).
    func runWorldCheck() throws {
        try FileManager.default.createDirectory(atPath: worldOut, withIntermediateDirectories: true)
        var results: [WorldCheck.Result] = []
        var base = PipelineOptions()
        if let config {
            do { base = try OptionsFile.read(path: config) } catch let error as OptionsFile.ReadError {
                throw ValidationError(error.description)
            }
            log("world: settings from \(config)")
        }
        for (i, path) in worldDatasets.enumerated() {
            let tapsFile = worldOut + "/taps-\(i).json"
            let taps = try WorldCheck.planTaps(path: path, tapsFile: tapsFile)
            log("world: \(taps.count) taps planned for \(path) → \(tapsFile)")
            let modes = worldMode.map { [$0 == "stereo"] } ?? [false, true]
            for stereo in modes {
                let r = try WorldCheck.run(path: path, stereo: stereo, taps: taps, tapsFile: tapsFile, options: base,
                                           baseline: worldBaseline, log: log)
                print(r.score.text(title: "\(path) \(stereo ? "stereo" : "mono") + IMU (ATE posyaw \(String(format: "%.1f", 1000 * r.ateRmse_m)) mm)", verbose: true))
                results.append(r)
            }
        }
        if let json {
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys]
            try enc.encode(results).write(to: URL(fileURLWithPath: json))
            log("bench: wrote \(json)")
        }
    }
}

func log(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }

BenchCommand.main()
