import Foundation
import Consumers
import Pipeline

/// Progress and summary lines on standard error (never stdout, which carries the stream).
struct StderrLog {
    let quiet: Bool
    private let isTerminal = isatty(STDERR_FILENO) == 1

    /// A line of its own.
    func line(_ text: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A progress line: rewritten in place on a terminal, one line each otherwise.
    func progress(_ text: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data((isTerminal ? "\r\u{1B}[K" + text : text + "\n").utf8))
    }

    /// The end-of-run summary (always printed, even with --quiet: it is the run's result).
    func summary(_ s: PipelineSummary) {
        if isTerminal && !quiet { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        let fps = Double(s.frames) / max(s.wallSeconds, 1e-9)
        var text = String(format: "run: %d frames (%.1f s of data) in %.1f s wall: %.0f fps, %.1f× real time\n",
                          s.frames, s.datasetSeconds, s.wallSeconds, fps, s.datasetSeconds / max(s.wallSeconds, 1e-9))
        let states = s.trackingStateCounts.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        text += "run: tracking states: \(states)\n"
        if let t = s.secondsToNormal { text += String(format: "run: normal tracking after %.2f s\n", t) }
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// The per-stage timing table printed by `--profile`.
enum ProfileReport {
    static func text(_ s: PipelineSummary) -> String {
        var lines = ["profile (ms per frame, warm-up frames excluded):",
                     StageTable.render(stages: s.stages, total: s.total)]
        if let t = s.total {
            lines.append(String(format: "whole pipeline: %.0f frames/s at the median frame time", 1000 / max(t.median_ms, 1e-9)))
        }
        return lines.joined(separator: "\n")
    }
}

/// An external program fed the stream on its standard input (`--pipe`).
enum ExternalPipe {
    /// Starts `/bin/sh -c command` with a pipe on its stdin; its stdout/stderr are ours.
    static func start(command: String) throws -> (Process, FileHandle) {
        signal(SIGPIPE, SIG_IGN) // a consumer that exits early must not kill us; writes then fail with EPIPE
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let pipe = Pipe()
        process.standardInput = pipe
        do { try process.run() } catch {
            throw CLIError.badInput("--pipe: could not start '\(command)': \(error.localizedDescription)")
        }
        return (process, pipe.fileHandleForWriting)
    }

    /// Closes the program's stdin, waits for it and reports a failure exit.
    static func finish(_ process: Process, writer: StreamWriter?) throws {
        if let stdin = process.standardInput as? Pipe { try? stdin.fileHandleForWriting.close() }
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            throw CLIError.failure("--pipe: the command exited with status \(process.terminationStatus)")
        }
    }
}

/// The machine-readable summary of a run (`run --summary-json`), read back by `bench-suite`.
struct RunSummaryJSON: Codable {
    var dataset: String
    var frames: Int
    var dataset_s: Double
    var wall_s: Double
    var fps: Double
    var ms_per_frame_median: Double?
    var seconds_to_normal: Double?
    var tracking_states: [String: Int]
    var stages: [StageStatistics]

    init(_ s: PipelineSummary, dataset: String) {
        self.dataset = dataset
        frames = s.frames; dataset_s = s.datasetSeconds; wall_s = s.wallSeconds
        fps = Double(s.frames) / max(s.wallSeconds, 1e-9)
        ms_per_frame_median = s.total?.median_ms
        seconds_to_normal = s.secondsToNormal
        tracking_states = s.trackingStateCounts
        stages = s.stages
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}
