import ArgumentParser
import Consumers
import Foundation
import OptionsFile
import Pipeline
#if canImport(Glibc)
import Glibc
#endif

/// Progress and summary lines on standard error (never stdout, which carries the stream).
struct StderrLog {
    let quiet: Bool
    private let isTerminal = isatty(STDERR_FILENO) == 1

    /// A line of its own.
    func line(_ text: String) {
        guard !quiet else { return }
        Stderr.write(text + "\n")
    }

    /// A warning line (printed even with --quiet: something in the data was left out).
    func warning(_ text: String) {
        if isTerminal && !quiet { Stderr.write("\r\u{1B}[K") }
        Stderr.write("warning: \(text)\n")
    }

    /// A progress line: rewritten in place on a terminal, one line each otherwise.
    func progress(_ text: String) {
        guard !quiet else { return }
        Stderr.write(isTerminal ? "\r\u{1B}[K" + text : text + "\n")
    }

    /// The end-of-run summary (always printed, even with --quiet: it is the run's result).
    func summary(_ s: PipelineSummary) {
        if isTerminal && !quiet { Stderr.write("\r\u{1B}[K") }
        let fps = Double(s.frames) / max(s.wall_s, 1e-9)
        var text = String(format: "run: %d frames (%.1f s of data) in %.1f s wall: %.0f fps, %.1f× real time\n",
                          s.frames, s.dataset_s, s.wall_s, fps, s.dataset_s / max(s.wall_s, 1e-9))
        let states = s.trackingStateCounts.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        text += "run: tracking states: \(states.isEmpty ? "none (no frame ran)" : states)\n"
        if let t = s.secondsToNormal { text += String(format: "run: normal tracking after %.2f s\n", t) }
        if s.undeterminedSpeedRefusals > 0, let last = s.lastUndeterminedSpeed {
            let n = s.undeterminedSpeedRefusals
            text += "run: refused \(n) time\(n == 1 ? "" : "s") to start in motion: the images did not fix the speed, and so the scale "
                + String(format: "(the last window found %.2f m/s, undetermined by ±%.2f m/s)", last.speed, last.tolerance)
                + "; circling at an even speed while facing the centre does this. Hold still for a second, or move less evenly, to start.\n"
        }
        if !s.skippedImages.isEmpty {
            let n = s.skippedImages.count
            text += "run: skipped \(n) frame\(n == 1 ? "" : "s") whose image could not be decoded\n"
        }
        Stderr.write(text)
    }
}

/// Writes to standard error with `write(2)`, ignoring failures (a closed stderr must not kill the run,
/// as `FileHandle.write(_:)` would).
enum Stderr {
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var base = buffer.baseAddress!, left = buffer.count
            while left > 0 {
                let n = Glibc.write(STDERR_FILENO, base, left)
                if n < 0 { if errno == EINTR { continue } else { return } }
                left -= n; base += n
            }
        }
    }
}

/// SIGINT and SIGTERM as stop requests: a dispatch signal source records the first one, the run polls
/// ``pending`` before every frame, then saves its outputs and exits with 128 + the signal's number.
/// A second signal while stopping ends the process at once (the default action).
enum StopSignal {
    private static let lock = NSLock()
    private static var received: Int32 = 0
    private static var sources: [DispatchSourceSignal] = []

    /// Installs the handlers (once per process).
    static func install() {
        lock.lock(); defer { lock.unlock() }
        guard sources.isEmpty else { return }
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN) // the source sees the signal; the default action would kill us
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                lock.lock()
                let first = received == 0
                if first { received = sig }
                lock.unlock()
                if !first { signal(sig, SIG_DFL); raise(sig) }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The signal received, if any.
    static var pending: Int32? {
        lock.lock(); defer { lock.unlock() }
        return received == 0 ? nil : received
    }

    static func name(_ sig: Int32) -> String { sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal \(sig)" }
}

/// Checks of the paths a run will write, made before the first frame (exit 2 naming the path and the reason).
enum OutputPath {
    /// Throws `CLIError.badInput` unless `path` can be created (or, with `force`, replaced) as a file:
    /// its folder exists and is writable, and it is not a folder itself.
    static func checkFile(_ path: String, option: String, force: Bool) throws {
        func bad(_ why: String) -> CLIError { .badInput("\(option) \(path): \(why)") }
        guard !path.isEmpty else { throw CLIError.badInput("\(option): empty path") }
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
            if isDir.boolValue { throw bad("is a folder, expected a file name") }
            if !force { throw bad("exists; pass --force to replace it") }
            if access(path, W_OK) != 0 { throw bad("exists and is not writable (\(String(cString: strerror(errno))))") }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        let folder = parent.isEmpty ? "." : parent
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDir) else {
            throw bad("folder \(folder) does not exist")
        }
        guard isDir.boolValue else { throw bad("\(folder) is not a folder") }
        if access(folder, W_OK | X_OK) != 0 { throw bad("cannot write in folder \(folder) (\(String(cString: strerror(errno))))") }
    }
}

/// An output file written as the run goes: whole lines are buffered and written with `write(2)` at least
/// once a second (and at `close`), so the file always ends with a complete line and a reader never sees a
/// torn one. Created when the run starts (refusing an existing file unless `replace`).
final class LineFile {
    let path: String
    private var fd: Int32
    private var buffer: [UInt8] = []
    private var lastFlush = DispatchTime.now().uptimeNanoseconds
    /// Lines appended so far (header lines included).
    private(set) var lines = 0
    /// The first write error, after which nothing more is written.
    private(set) var error: String?

    /// Creates the file (`O_EXCL` unless `replace`, which truncates an existing one).
    /// - Throws: `CLIError.badInput` naming `option`, the path and the reason.
    init(path: String, option: String, replace: Bool) throws {
        self.path = path
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (replace ? O_TRUNC : O_EXCL)
        fd = open(path, flags, 0o644)
        if fd < 0 {
            let code = errno
            let why = code == EEXIST ? "exists; pass --force to replace it" : String(cString: strerror(code))
            throw CLIError.badInput("\(option) \(path): cannot create the file: \(why)")
        }
    }

    /// Adds a complete line (with its newline); writes the buffer when a second has passed since the last write.
    func append(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        lines += 1
        if buffer.count >= 1 << 20 { flush() } else { flushIfDue() }
    }

    /// Writes the buffer if a second has passed since the last write (called every frame, so buffered
    /// lines never wait longer than about a second, even while no pose is added).
    func flushIfDue() {
        if !buffer.isEmpty && DispatchTime.now().uptimeNanoseconds - lastFlush >= 1_000_000_000 { flush() }
    }

    /// Writes what is buffered (whole lines).
    func flush() {
        lastFlush = DispatchTime.now().uptimeNanoseconds
        guard fd >= 0, error == nil, !buffer.isEmpty else { buffer.removeAll(keepingCapacity: true); return }
        do { try buffer.withUnsafeBytes { try FileDescriptorWriter.writeAll(fd: fd, $0) } } catch {
            self.error = "\(error)"
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes; returns the first write error, if any.
    @discardableResult
    func close() -> String? {
        flush()
        if fd >= 0 {
            if Glibc.close(fd) != 0, error == nil { error = String(cString: strerror(errno)) }
            fd = -1
        }
        return error
    }

    deinit { close() }
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let pipe = Pipe()
        process.standardInput = pipe
        // The child inherits ignored signals: give it the default SIGPIPE (so `cmd | head` inside it works).
        let previous = signal(SIGPIPE, SIG_DFL)
        defer { signal(SIGPIPE, previous) }
        do { try process.run() } catch {
            throw CLIError.badInput("--pipe: could not start /bin/sh for '\(command)': \(error.localizedDescription)")
        }
        try? pipe.fileHandleForReading.close() // the child has its copy; ours would keep the pipe open
        return (process, pipe.fileHandleForWriting)
    }

    /// Closes the program's stdin and waits for it (at most `timeout` seconds, then terminates it).
    /// Returns its exit status (128 + n when killed by signal n).
    static func finish(_ process: Process, timeout: Double = 10) -> Int32 {
        if let stdin = process.standardInput as? Pipe { try? stdin.fileHandleForWriting.close() }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// What the exit status of `sh -c command` says, in words.
    static func describe(command: String, status: Int32) -> String {
        switch status {
        case 127: return "--pipe: command not found: '\(command)' (sh exit status 127)"
        case 126: return "--pipe: command '\(command)' cannot be executed (sh exit status 126)"
        default: return "--pipe: the command '\(command)' exited with status \(status)"
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
    /// Images that could not be decoded; their frames were skipped.
    var skipped_images: [String]? = nil
    /// False when the run stopped before the end of the data (`stopped` says why).
    var completed: Bool? = nil
    var stopped: String? = nil
    /// Every setting the run used, by dotted key (`worldtrack config --defaults`), as the configuration file writes it.
    var configuration: [String: String]? = nil
    /// Windows of the start in motion refused because they did not fix the speed, and so the scale (absent: none).
    var refused_start_windows: Int? = nil

    init(_ s: PipelineSummary, dataset: String, stopped: String? = nil, configuration options: PipelineOptions? = nil) {
        self.dataset = dataset
        frames = s.frames; dataset_s = s.dataset_s; wall_s = s.wall_s
        fps = Double(s.frames) / max(s.wall_s, 1e-9)
        ms_per_frame_median = s.total?.median_ms
        seconds_to_normal = s.secondsToNormal
        tracking_states = s.trackingStateCounts
        stages = s.stages
        skipped_images = s.skippedImages.map(\.path)
        refused_start_windows = s.undeterminedSpeedRefusals > 0 ? s.undeterminedSpeedRefusals : nil
        completed = stopped == nil
        self.stopped = stopped
        configuration = options.map { Dictionary(uniqueKeysWithValues: OptionsFile.values($0).map { ($0.key, $0.value.description) }) }
    }

    /// Writes the summary (replacing the file: its path was checked before the run started).
    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

/// `run --convention worldtrack|arkit`: the stream's frame conventions, by their raw names.
extension StreamConvention: ExpressibleByArgument {}
