import Foundation
import Pipeline
import Sensors
import Simulation
import WorldTrackCLI

/// Figures of one dataset's benchmark.
struct DatasetFigures: Codable {
    var dataset: String
    var frames: Int
    var repeats: Int
    /// Per stage: median over the repeats of each run's median / p90, and the max over all runs, ms per frame.
    var stages: [StageFigures]
    var total: StageFigures
    /// Frames per second of the whole pipeline on one core: frames / summed frame time (median over repeats).
    var fps: Double
    /// Dataset seconds per wall second.
    var realTimeFactor: Double
    /// Frames per wall-clock second with one thread and with two (`PipelineOptions.threads`; median over the
    /// repeats): the two-thread figure needs a second free core, so it depends on the machine's load.
    var wallFps1Thread: Double
    var wallFps2Threads: Double?
    var peakResidentMiB: Double?

    func table() -> String {
        func cell(_ s: String, _ w: Int, left: Bool = false) -> String {
            let pad = String(repeating: " ", count: max(0, w - s.count)); return left ? s + pad : pad + s
        }
        var lines = ["\(dataset): \(frames) frames, \(repeats) timed runs after 1 warm-up run",
                     cell("stage (CPU)", 12, left: true) + cell("median ms", 11) + cell("p90 ms", 10) + cell("p99 ms", 10) + cell("max ms", 10)]
        for s in stages + [total] {
            lines.append(cell(s.stage, 12, left: true) + cell(String(format: "%.3f", s.median_ms), 11)
                         + cell(String(format: "%.3f", s.p90_ms), 10)
                         + cell(String(format: "%.3f", s.p99_ms), 10) + cell(String(format: "%.3f", s.max_ms), 10))
        }
        lines.append(String(format: "whole pipeline: %.0f frames/s on one core (%.1f× real time); peak RSS %.1f MiB",
                            fps, realTimeFactor, peakResidentMiB ?? .nan))
        if let two = wallFps2Threads {
            lines.append(String(format: "wall clock: %.0f frames/s with 1 thread, %.0f with 2 (%.2f×)", wallFps1Thread, two,
                                two / wallFps1Thread))
        }
        return lines.joined(separator: "\n")
    }
}

struct StageFigures: Codable {
    var stage: String
    var median_ms: Double
    var p90_ms: Double
    var p99_ms: Double
    var max_ms: Double
}

struct FrontendFigures: Codable {
    var dataset: String
    var description: String
}

struct MachineInfo: Codable {
    var cores: Int
    var memoryGiB: Double
    var os: String
    static func current() -> MachineInfo {
        MachineInfo(cores: ProcessInfo.processInfo.activeProcessorCount,
                    memoryGiB: Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824,
                    os: ProcessInfo.processInfo.operatingSystemVersionString)
    }
}

struct BenchReport: Codable {
    var machine: MachineInfo
    var `repeat`: Int
    var warmupFrames: Int
    var datasets: [DatasetFigures] = []
    var frontendOnly: FrontendFigures?
    /// What decode, one pyramid and the KLT cost alone, per dataset.
    var floors: [FloorFigures] = []
    var longRun: MemoryGrowth?
    var peakResidentMiB: Double?
}

/// Resident memory of this process, from /proc/self/status.
enum ProcessMemory {
    static func field(_ name: String) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let kb = line.split(separator: " ").compactMap { Double($0) }.first
            return kb.map { $0 / 1024 }
        }
        return nil
    }
    /// Current resident set, MiB.
    static func residentMiB() -> Double? { field("VmRSS") }
    /// Peak resident set, MiB.
    static func peakResidentMiB() -> Double? { field("VmHWM") }
}

/// Runs the pipeline on one dataset: a warm-up run, then timed repeats.
enum PipelineBenchmark {
    static func run(path: String, stereo: Bool = false, repeats: Int, warmupFrames: Int, compareThreads: Bool = true,
                    log: (String) -> Void) throws -> DatasetFigures {
        let dataset = try ASLDataset(path: path)
        var options = PipelineOptions()
        options.profileWarmupFrames = warmupFrames
        options.stereo = stereo
        let label = stereo ? "\(path) (stereo)" : path
        log("bench: \(label): warm-up run")
        _ = try TrackingPipeline(dataset: dataset, options: options).run()
        var runs: [PipelineSummary] = []
        for i in 1...repeats {
            log("bench: \(label): timed run \(i)/\(repeats)")
            runs.append(try TrackingPipeline(dataset: dataset, options: options).run())
        }
        func median(_ v: [Double]) -> Double {
            let s = v.sorted(); return s.isEmpty ? .nan : (s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2)
        }
        let stageNames = runs[0].stages.map(\.stage)
        let stages = stageNames.map { stage -> StageFigures in
            let per = runs.compactMap { $0.stages.first { $0.stage == stage } }
            return StageFigures(stage: stage.rawValue, median_ms: median(per.map(\.median_ms)),
                                p90_ms: median(per.map(\.p90_ms)), p99_ms: median(per.map(\.p99_ms)), max_ms: per.map(\.max_ms).max() ?? .nan)
        }
        let totals = runs.compactMap(\.total)
        let total = StageFigures(stage: "total", median_ms: median(totals.map(\.median_ms)),
                                 p90_ms: median(totals.map(\.p90_ms)), p99_ms: median(totals.map(\.p99_ms)), max_ms: totals.map(\.max_ms).max() ?? .nan)
        let fps = median(totals.map { Double($0.count) / max($0.total_ms / 1000, 1e-9) })
        let rtf = median(runs.map { $0.dataset_s / max($0.wall_s, 1e-9) })
        let wallFps1 = median(runs.map { Double($0.frames) / max($0.wall_s, 1e-9) })
        var wallFps2: Double?
        if compareThreads {
            var two = options
            two.threads = 2
            var fps2: [Double] = []
            for i in 1...repeats {
                log("bench: \(label): timed run \(i)/\(repeats) with 2 threads")
                let r = try TrackingPipeline(dataset: dataset, options: two).run()
                fps2.append(Double(r.frames) / max(r.wall_s, 1e-9))
            }
            wallFps2 = median(fps2)
        }
        return DatasetFigures(dataset: label, frames: runs[0].frames, repeats: repeats, stages: stages, total: total,
                              fps: fps, realTimeFactor: rtf, wallFps1Thread: wallFps1, wallFps2Threads: wallFps2,
                              peakResidentMiB: ProcessMemory.peakResidentMiB())
    }
}

/// The long-run memory check: resident memory must stop growing.
struct MemoryGrowth: Codable {
    var minutes: Double
    var frames: Int
    var residentAtMinute2MiB: Double
    var residentAtEndMiB: Double
    var growthPercent: Double
    var passed: Bool
    /// (dataset minute, resident MiB) samples, one per simulated minute.
    var samples: [[Double]]

    func text() -> String {
        String(format: "long run: %.0f min (%d frames): RSS %.1f MiB at minute 2, %.1f MiB at the end: growth %.2f %% (limit %.0f %%) → %@",
               minutes, frames, residentAtMinute2MiB, residentAtEndMiB, growthPercent, MemoryGrowthCheck.limitPercent, passed ? "PASS" : "FAIL")
    }
}

enum MemoryGrowthCheck {
    /// Largest growth of the resident memory from minute 2 to the end that passes, percent (issue 16: 5 %).
    static let limitPercent = 5.0

    static func run(minutes: Double, log: @escaping (String) -> Void) throws -> MemoryGrowth {
        let name = String(format: "room-handheld-%.0fmin-376x240-seed7", minutes)
        let path = DefaultDataset.cacheDirectory() + "/" + name
        if !FileManager.default.fileExists(atPath: path + "/mav0/cam0/data.csv") {
            log("bench: simulating the \(Int(minutes))-minute sequence (376×240, cached) …")
            let rig = SimRig.euroc().scaled(width: 376, height: 240)
            let config = SimulationConfig(scene: try Scene.builtIn(named: "room"), trajectoryName: "handheld",
                                          seconds: minutes * 60, seed: 7, rig: rig)
            let staging = path + ".partial"
            try? FileManager.default.removeItem(atPath: staging)
            try DatasetWriter.write(config, to: staging) { done, total in
                if done % 1000 == 0 { log("bench: simulated \(done)/\(total) frames") }
            }
            try FileManager.default.moveItem(atPath: staging, toPath: path)
        }
        let dataset = try ASLDataset(path: path)
        let t0 = dataset.cameras[0].frames.first?.t_ns ?? 0
        var samples: [[Double]] = []
        var nextMinute = 1.0
        var frames = 0
        log("bench: long run over \(dataset.cameras[0].frames.count) frames")
        let pipeline = try TrackingPipeline(dataset: dataset, options: PipelineOptions())
        _ = try pipeline.run { _ in } onFrame: { r in
            frames += 1
            let minute = Time.seconds(r.estimate.t_ns - t0) / 60
            if minute >= nextMinute - 1e-9 {
                samples.append([nextMinute, ProcessMemory.residentMiB() ?? .nan])
                nextMinute += 1
            }
        }
        // Measured inside the run (the pipeline alive); a sample after `run` returns would miss what it held.
        if samples.last?[0] != minutes { samples.append([minutes, ProcessMemory.residentMiB() ?? .nan]) }
        let at2 = samples.first { $0[0] >= 2 }?[1] ?? .nan
        let end = samples.last?[1] ?? .nan
        let growth = (end - at2) / at2 * 100
        return MemoryGrowth(minutes: minutes, frames: frames, residentAtMinute2MiB: at2, residentAtEndMiB: end,
                            growthPercent: growth, passed: growth <= limitPercent, samples: samples)
    }
}

/// The EuRoC V1_01 sequence re-rendered along its ground truth with its real IMU (`simulate --from-recording`,
/// stereo, fitted room), cached next to the default dataset; `nil` (after a notice) when the recording is absent.
enum RecordingBenchmarkDataset {
    /// Folder name: recording, span and the simulator's output version, so a simulator change re-renders it.
    static func name(seconds: Double?) -> String {
        "v101-from-recording-stereo-\(seconds.map { String(format: "%.0fs", $0) } ?? "all")-sim\(SimulationModule.outputVersion)-rec1"
    }

    static func ensure(recording: String, seconds: Double?, log: @escaping (String) -> Void) throws -> String? {
        let fm = FileManager.default
        guard fm.fileExists(atPath: recording + "/mav0") else {
            log("bench: \(recording) is absent; skipping the from-recording (real-IMU) V1_01 benchmark")
            return nil
        }
        let cache = DefaultDataset.cacheDirectory()
        let path = cache + "/" + name(seconds: seconds)
        if fm.fileExists(atPath: path + "/mav0/cam0/data.csv") { return path }
        try fm.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let staging = cache + "/.\(name(seconds: seconds)).partial-\(ProcessInfo.processInfo.processIdentifier)"
        try? fm.removeItem(atPath: staging)
        log("bench: rendering V1_01 along its ground truth (stereo, \(seconds.map { "\($0) s" } ?? "whole sequence"); cached) …")
        let config = RecordingSimulationConfig(recording: try Recording(path: recording), stereo: true, seconds: seconds)
        try RecordingDatasetWriter.write(config, to: staging) { done, total in
            if done % 500 == 0 || done == total { log("bench: rendered \(done)/\(total) frames") }
        }
        if fm.fileExists(atPath: path) { try fm.removeItem(atPath: path) }
        try fm.moveItem(atPath: staging, toPath: path)
        return path
    }
}
