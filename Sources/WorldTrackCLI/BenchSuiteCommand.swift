import ArgumentParser
import Evaluation
import Foundation
import OptionsFile
import Sensors

/// `worldtrack bench-suite`: run + evaluate a list of datasets and configurations in parallel processes
/// (`bench-suite [run] MANIFEST`, the default), or join shard results (`bench-suite merge`).
struct BenchSuiteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-suite",
        abstract: "Run and evaluate a suite of datasets in parallel; write a JSON and a Markdown table.",
        discussion: """
        MANIFEST is a JSON file:
          {
            "entries": [
              { "name": "euroc-micro",
                "dataset": "../shared/datasets/euroc-v101-micro" },
              { "name": "room-stereo", "stereo": true, "align": "posyaw",
                "simulate": ["--scene", "room", "--seconds", "20", "--seed", "2",
                             "--stereo"] }
            ]
          }
        Each entry has a unique "name" and either "dataset" (a folder; relative paths are resolved \
        against the manifest's folder) or "simulate" (arguments of `worldtrack simulate`; the dataset \
        is written once into OUT/datasets/NAME, or DIR/NAME with --datasets DIR, and reused). Optional: "stereo" (bool), "start" \
        (seconds into the dataset: `run --start`; a run that starts in motion initialises \
        dynamically), "seconds" (number), "align" (posyaw | se3 | sim3 | none; default posyaw).

        Entries with the same "simulate" arguments share one dataset (simulated once, named after the \
        first of them), e.g. mono and stereo runs of one stereo simulation. In "simulate", the path after \
        "--from-recording" (and a "--scene" .json file) is resolved against the manifest's folder like \
        "dataset"; an entry whose recording is absent is skipped with a notice (status "skipped", not a \
        failure), so a suite over shared recordings runs where they are missing:
              { "name": "v101-rec-stereo", "stereo": true,
                "simulate": ["--from-recording",
                             "../../../shared/datasets/euroc-v101-micro", "--stereo"] }

        (Benchmarks/suites/v101-from-recording.json: the EuRoC V1_01 sequence re-rendered along its \
        ground truth with its real IMU, mono and stereo, whole and 30 s, and mono runs of 60 s that \
        start in flight at 20, 40, 60 and 80 s.)

        Every entry runs `worldtrack run` in its own process (--jobs at a time) and is evaluated \
        against its ground truth. Results: OUT/results.json and OUT/results.md (per sequence: ATE, \
        RPE — the mean over the lengths 10–50 % of the path of the mean translation error in % of \
        the length, and of the rotation error — completeness, time per frame; the full RPE per \
        length is in the JSON). The means are over the entries that succeeded and say over how \
        many; failed entries are listed with their error (exit 1). With --shard I/N the files are \
        named results-shard-I-of-N.*.

        --shard I/N takes every N-th entry starting at I (0-based), so an existing job runner can \
        spread a large suite over machines: a Slurm array (--shard $SLURM_ARRAY_TASK_ID/$N), a \
        Kubernetes indexed Job ($JOB_COMPLETION_INDEX), or GNU parallel (parallel worldtrack \
        bench-suite m.json --shard {}/4 ::: 0 1 2 3). `worldtrack bench-suite merge DIR… --out \
        FILE` joins the shards' results into one (see `worldtrack help bench-suite merge`).

        Options of a run (--jobs, --shard, --out): `worldtrack help bench-suite run`.

        Examples:
          worldtrack bench-suite Benchmarks/suite.json --jobs 2 --out /tmp/suite
          worldtrack bench-suite suite.json --shard 1/4 --out /shared/results
          worldtrack bench-suite merge /shared/results --out /shared/suite.json
        """,
        subcommands: [BenchSuiteRunCommand.self, BenchSuiteMergeCommand.self, BenchSuiteCompareCommand.self],
        defaultSubcommand: BenchSuiteRunCommand.self)
}

/// `worldtrack bench-suite [run] MANIFEST`: runs and evaluates the manifest's entries (or one shard of them).
struct BenchSuiteRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run and evaluate the entries of a manifest (the default: `bench-suite MANIFEST`).",
        discussion: """
        The manifest's format and the results: `worldtrack help bench-suite`.

        Examples:
          worldtrack bench-suite Benchmarks/suite.json --jobs 2 --out /tmp/suite
          worldtrack bench-suite run suite.json --shard 1/4 --out /shared/results
        """)

    @Argument(help: "The suite manifest (JSON).")
    var manifest: String

    @Option(help: "Entries to run at once (processes).")
    var jobs: Int = 1

    @Option(help: "Run only shard I of N (every N-th entry starting at I, 0-based), e.g. 0/4.")
    var shard: String?

    @Option(help: "Output folder for trajectories, logs and the results.")
    var out: String = "bench-suite-results"

    @Option(help: ArgumentHelp("Settings (YAML, as `worldtrack run --config`) for every run of the suite; the results name the file. "
                               + "Run the suite with and without it, then `bench-suite compare`, to judge a setting over many draws.",
                               valueName: "FILE"))
    var config: String?

    @Option(help: ArgumentHelp("Folder for the datasets the manifest's \"simulate\" entries make (default OUT/datasets). Give several "
                               + "runs of a suite the same folder to render each simulation once; a folder holding another "
                               + "simulation under an entry's name fails that entry.", valueName: "DIR"))
    var datasets: String?

    func validate() throws {
        guard jobs >= 1 && jobs <= 64 else { throw ValidationError("--jobs must be between 1 and 64 (got \(jobs))") }
        if let shard { _ = try Shard.parse(shard) }
    }

    func run() throws {
        // The settings are read here, so a bad file stops the suite before anything is written (each run reads it again).
        if let config {
            do { _ = try OptionsFile.read(path: config) } catch let error as OptionsFile.ReadError {
                throw CLIError.badInput(error.description)
            }
        }
        let entries = try SuiteManifest.load(path: manifest)
        let identity = ManifestIdentity(path: manifest, bytes: FileManager.default.contents(atPath: manifest) ?? Data(),
                                        entries: entries.map(\.name))
        let shardSpec = try shard.map(Shard.parse) ?? Shard(index: 0, count: 1)
        let mine = entries.enumerated().filter { $0.offset % shardSpec.count == shardSpec.index }.map(\.element)
        guard !mine.isEmpty else { throw CLIError.badInput("\(manifest): shard \(shardSpec.index)/\(shardSpec.count) has no entries") }
        let fm = FileManager.default
        do { try fm.createDirectory(atPath: out + "/runs", withIntermediateDirectories: true) } catch {
            throw CLIError.badInput("cannot create \(out): \(error.localizedDescription)")
        }
        let suffix = shard == nil ? "" : "-shard-\(shardSpec.index)-of-\(shardSpec.count)"
        let resultPaths = ["json", "md"].map { "\(out)/results\(suffix).\($0)" }
        for p in resultPaths where fm.fileExists(atPath: p) {
            throw CLIError.badInput("\(p) exists; choose another --out or remove it")
        }
        let settings = config.map { $0.hasPrefix("/") ? $0 : fm.currentDirectoryPath + "/" + $0 }
        let executable = SelfExecutable.path()
        let from = settings.map { ", settings from \($0)" } ?? ""
        FileHandle.standardError.write(Data("bench-suite: \(mine.count) of \(entries.count) entries, \(jobs) at a time → \(out)\(from)\n".utf8))

        let results = ResultBox(count: mine.count)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = jobs
        // Entries with the same simulate arguments share the dataset of the first of them in the manifest.
        var firstBySimulation: [[String]: String] = [:]
        for e in entries { if let sim = e.simulate, firstBySimulation[sim] == nil { firstBySimulation[sim] = e.name } }
        for (i, entry) in mine.enumerated() {
            let shared = entry.simulate.flatMap { firstBySimulation[$0] }
            queue.addOperation {
                let r = SuiteRunner.run(entry, executable: executable, out: out, datasets: datasets ?? out + "/datasets",
                                        sharedName: shared, config: settings)
                results.set(i, r)
                let line = r.skipped.map { "skipped: \($0)" } ?? r.error.map { "FAILED: \($0)" }
                    ?? String(format: "ATE %.4f m, %.2f ms/frame", r.ate_rmse_m ?? .nan, r.ms_per_frame_median ?? .nan)
                FileHandle.standardError.write(Data("bench-suite: \(entry.name): \(line)\n".utf8))
            }
        }
        queue.waitUntilAllOperationsAreFinished()
        var report = SuiteReport(entries: results.values.compactMap { $0 }, manifest: identity, shard: shardSpec)
        report.config = settings
        try report.writeJSON(to: resultPaths[0])
        try report.markdown().write(toFile: resultPaths[1], atomically: true, encoding: .utf8)
        print(report.markdown(), terminator: "")
        if !report.failed.isEmpty {
            throw CLIError.failure("\(report.failed.count) of \(report.entries.count) entries failed "
                                   + "(\(report.failed.map(\.name).joined(separator: ", "))); see \(resultPaths[0])")
        }
    }
}

/// `I/N`: shard I (0-based) of N.
struct Shard: Codable, Equatable {
    var index: Int, count: Int
    static func parse(_ s: String) throws -> Shard {
        let parts = s.split(separator: "/").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let i = parts[0], let n = parts[1], n >= 1, i >= 0, i < n else {
            throw ValidationError("--shard must be I/N with 0 ≤ I < N (got '\(s)')")
        }
        return Shard(index: i, count: n)
    }
}

/// One entry of a suite manifest.
struct SuiteEntry: Codable, Equatable {
    var name: String
    var dataset: String?
    var simulate: [String]?
    var stereo: Bool?
    /// Seconds into the dataset the run starts (`run --start`).
    var start: Double?
    var seconds: Double?
    var align: String?
}

/// The suite manifest file.
enum SuiteManifest {
    struct File: Codable { var entries: [SuiteEntry] }

    static func load(path: String) throws -> [SuiteEntry] {
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError.badInput("\(path): cannot read the manifest") }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw CLIError.badInput("\(path): not a valid manifest: \(error)")
        }
        guard !file.entries.isEmpty else { throw CLIError.badInput("\(path): the manifest has no entries") }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var seen = Set<String>()
        return try file.entries.enumerated().map { i, e in
            var e = e
            let label = "\(path): entry \(i + 1) (\(e.name))"
            guard !e.name.isEmpty, e.name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
                throw CLIError.badInput("\(label): name must be non-empty letters, digits, '-', '_' or '.'")
            }
            guard seen.insert(e.name).inserted else { throw CLIError.badInput("\(label): duplicate name") }
            guard (e.dataset == nil) != (e.simulate == nil) else {
                throw CLIError.badInput("\(label): give exactly one of \"dataset\" or \"simulate\"")
            }
            if let a = e.align, AlignmentMethod(rawValue: a) == nil {
                throw CLIError.badInput("\(label): align must be posyaw, se3, sim3 or none (got '\(a)')")
            }
            if let s = e.seconds, !(s > 0) { throw CLIError.badInput("\(label): seconds must be > 0") }
            if let s = e.start, !(s >= 0 && s.isFinite) { throw CLIError.badInput("\(label): start must be ≥ 0") }
            if let d = e.dataset, !d.hasPrefix("/") { e.dataset = base + "/" + d }
            if var sim = e.simulate {
                // Paths inside the simulate arguments are relative to the manifest, like "dataset".
                for (k, arg) in sim.enumerated() where k + 1 < sim.count && !sim[k + 1].hasPrefix("/") {
                    if arg == "--from-recording" || (arg == "--scene" && sim[k + 1].lowercased().hasSuffix(".json")) {
                        sim[k + 1] = base + "/" + sim[k + 1]
                    }
                }
                e.simulate = sim
            }
            return e
        }
    }
}

/// Runs one entry: simulate if needed, `worldtrack run` in a child process, evaluate.
enum SuiteRunner {
    /// `datasets`: the folder simulations are written to (and reused from); `sharedName`: the dataset folder name of a
    /// simulation shared with earlier entries (same arguments); `config`: the settings file for `worldtrack run --config`.
    static func run(_ e: SuiteEntry, executable: String, out: String, datasets: String? = nil, sharedName: String? = nil,
                    config: String? = nil) -> SuiteResult {
        let align = e.align ?? "posyaw"
        var result = SuiteResult(name: e.name, dataset: e.dataset ?? "(simulated)", stereo: e.stereo ?? false, alignment: align)
        let runDir = "\(out)/runs/\(e.name)"
        do {
            try FileManager.default.createDirectory(atPath: runDir, withIntermediateDirectories: true)
            var dataset = e.dataset ?? ""
            if let sim = e.simulate {
                if let k = sim.firstIndex(of: "--from-recording"), k + 1 < sim.count,
                   !FileManager.default.fileExists(atPath: sim[k + 1]) {
                    result.skipped = "the recording \(sim[k + 1]) is absent"
                    return result
                }
                dataset = "\(datasets ?? out + "/datasets")/\(sharedName ?? e.name)"
                // One simulation per distinct argument list, even when its entries run at once.
                let lock = SimulationLocks.lock(for: dataset)
                lock.lock()
                defer { lock.unlock() }
                // The arguments a dataset was simulated with, beside it: a folder shared by several suites' runs is reused
                // only for the same simulation.
                let marker = dataset + "/bench-suite-simulate.json"
                let wanted = try JSONEncoder().encode(sim)
                if FileManager.default.fileExists(atPath: dataset + "/mav0/cam0/data.csv") {
                    let made = FileManager.default.contents(atPath: marker)
                    guard made == wanted else {
                        let what = made.flatMap { String(data: $0, encoding: .utf8) } ?? "unknown arguments"
                        throw CLIError.failure("\(dataset) holds another simulation (\(what)) than this entry's; give another --datasets folder")
                    }
                } else {
                    try? FileManager.default.removeItem(atPath: dataset)
                    try runChild(executable, ["simulate"] + sim + ["--out", dataset], log: "\(runDir)/simulate.log")
                    try wanted.write(to: URL(fileURLWithPath: marker))
                }
                result.dataset = dataset
            }
            let tum = "\(runDir)/trajectory.tum", summary = "\(runDir)/run.json"
            var args = ["run", dataset, "--no-stream", "--quiet", "--force", "--trajectory", tum, "--summary-json", summary]
            if e.stereo == true { args.append("--stereo") }
            if let s = e.start { args += ["--start", String(s)] }
            if let s = e.seconds { args += ["--seconds", String(s)] }
            if let config { args += ["--config", config] }
            try runChild(executable, args, log: "\(runDir)/run.log")
            if let data = FileManager.default.contents(atPath: summary),
               let s = try? JSONDecoder().decode(RunSummaryJSON.self, from: data) {
                result.frames = s.frames; result.ms_per_frame_median = s.ms_per_frame_median
                result.fps = s.fps; result.seconds_to_normal = s.seconds_to_normal
            }
            let estimate = try TrajectoryLoader.load(path: tum)
            let groundTruth = try TrajectoryLoader.load(path: dataset)
            let report = try Evaluator.evaluate(estimate: estimate.poses, groundTruth: groundTruth.poses,
                                                options: EvaluationOptions(alignment: AlignmentMethod(rawValue: align) ?? .posyaw))
            result.record(report)
            // Against gravity too, where the recording's IMU and the ground truth's own bias measure it (a frame
            // levelled by hand is a fraction of a degree off; the tilt error as given includes that).
            if let gravity = try? GroundTruthGravity.measure(datasetFolder: dataset), gravity.usedGroundTruthBias {
                result.tilt_vs_gravity_median_deg = TiltError(pairs: report.pairs, levelledBy: gravity).statistics.median
            }
        } catch {
            result.error = "\(error)"
        }
        return result
    }

    private static func runChild(_ executable: String, _ args: [String], log: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? handle.close() }
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw CLIError.failure("`worldtrack \(args.prefix(2).joined(separator: " "))` exited with \(p.terminationStatus); see \(log)")
        }
    }
}

/// One lock per simulated dataset folder, so entries sharing a simulation wait for it instead of racing.
enum SimulationLocks {
    private static let guardLock = NSLock()
    private static var locks: [String: NSLock] = [:]
    static func lock(for path: String) -> NSLock {
        guardLock.lock(); defer { guardLock.unlock() }
        if let l = locks[path] { return l }
        let l = NSLock()
        locks[path] = l
        return l
    }
}

/// Thread-safe slots for results filled by parallel operations.
final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [SuiteResult?]
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: SuiteResult) { lock.lock(); values[i] = r; lock.unlock() }
}

/// The path of the running `worldtrack` executable (to start children of the same build).
enum SelfExecutable {
    static func path() -> String {
        if let p = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return p }
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }
}
