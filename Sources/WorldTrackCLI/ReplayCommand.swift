import ArgumentParser
import Consumers
import Foundation
import OptionsFile
import Pipeline
import Sensors
import World
#if canImport(Glibc)
import Glibc
#endif

/// `worldtrack replay`: re-emit a recorded stream and drive consumers from it, without re-tracking.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Re-emit a recorded stream and drive consumers from it, without re-tracking.",
        discussion: """
        Reads a stream written by `worldtrack run --stream-world-input` (a world_input record after every \
        frame record: the world layer's exact input), rebuilds planes and anchors from it and runs the \
        consumers on every frame. Writes the stream a live run with those consumers writes: the recorded \
        frame records (anchors in view made again), world_input records, the replay's anchor records, \
        each frame's consumer records, and the consumers' final records. A stream recorded without \
        consumers and replayed with them equals, byte for byte, a live run with them (same --config). \
        The recorded run's own consumer records are not re-emitted. burst and object need images, \
        which a stream does not carry.

        The replay's plane records are compared with the recorded ones; a difference (other world \
        settings than the live run's) is reported on stderr.

        Exit status: 0, 1 (failed), 2 (bad input: unreadable stream, a stream without world_input \
        records, bad consumer spec), 130 / 143 (SIGINT / SIGTERM), 141 (stdout reader gone).

        Examples:
          worldtrack run /tmp/room --stream-world-input > /tmp/room.jsonl
          worldtrack replay /tmp/room.jsonl --consumer cursor:place=20 \\
              --consumer measure:taps=taps.json
          worldtrack replay /tmp/room.jsonl --realtime --consumer cursor \\
              --pipe 'jq -c "select(.type==\\"cursor\\")"'
        """)

    @Argument(help: "The recorded stream (JSON Lines; - for standard input).")
    var stream: String

    @Option(name: .customLong("consumer"), help: "Enable a consumer: NAME[:key=value,…] (repeatable; measure, cursor).")
    var consumers: [String] = []

    @Option(help: "Frame conventions of the recorded stream (the live run's --convention): worldtrack or arkit. The replay's records use the same.")
    var convention: StreamConvention = .worldtrack

    @Option(help: "Settings file of the live run (its world settings shape the planes; see `worldtrack config`).")
    var config: String?

    @Flag(help: "Pace the replay by the frames' t_ns instead of running as fast as possible.")
    var realtime = false

    @Option(help: "Feed the output to this shell command's standard input (instead of stdout).")
    var pipe: String?

    @Flag(help: "No progress lines on stderr.")
    var quiet = false

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        let log = StderrLog(quiet: quiet)
        let consumerObjects: [any FrameConsumer]
        do {
            let specs = try consumers.map { try ConsumerSpec(parsing: $0) }
            if let needsImages = specs.first(where: { ["burst", "object"].contains($0.name) }) {
                throw CLIError.badInput("--consumer \(needsImages.name): it needs the frames' images, which a stream does not carry; use it on `worldtrack run`")
            }
            consumerObjects = try specs.map { try ConsumerFactory.make($0, convention: convention) }
            if specs.contains(where: { $0.name == "measure" && (try? $0.onOff("images")) != false }) {
                log.line("replay: measure's use of the images (the depth check, and placing pixels the map cannot) does not run "
                         + "(a stream carries no images): its records equal a live run's with `measure:…,images=off`, and a live "
                         + "run's with images wherever the images failed no tap and placed no point")
            }
        } catch let error as CLIError { throw error } catch {
            throw CLIError.badInput("--consumer: \(error)")
        }
        // The run's defaults (PipelineOptions sets the plane worker's delay), then the file's.
        var world = PipelineOptions().world
        if let config {
            do { world = try OptionsFile.read(path: config).world } catch let error as OptionsFile.ReadError {
                throw CLIError.badInput(error.description)
            }
        }
        let input: FileHandle
        if stream == "-" {
            input = .standardInput
        } else {
            guard let handle = FileHandle(forReadingAtPath: stream) else {
                var isDir: ObjCBool = false
                let exists = FileManager.default.fileExists(atPath: stream, isDirectory: &isDir)
                throw CLIError.badInput("\(stream): \(exists ? (isDir.boolValue ? "is a folder, expected a stream file" : "cannot be read") : "no such file")")
            }
            input = handle
        }

        var child: Process?
        let writer: StreamWriter
        if let pipe {
            let (process, handle) = try ExternalPipe.start(command: pipe)
            child = process
            writer = StreamWriter(handle: handle)
        } else {
            writer = StreamWriter(handle: .standardOutput)
        }
        StopSignal.install()

        let replayer = StreamReplayer(worldOptions: world, consumers: consumerObjects, convention: convention) { try writer.write(line: $0) }
        let wallStart = DispatchTime.now().uptimeNanoseconds
        var firstFrame_ns: TimestampNs?
        var lastProgress = wallStart
        replayer.beforeFrame = { t in
            let first = firstFrame_ns ?? t
            firstFrame_ns = first
            if realtime {
                let due = wallStart + UInt64(max(0, t - first))
                let now = DispatchTime.now().uptimeNanoseconds
                if due > now { usleep(UInt32(min(UInt64(UInt32.max), (due - now) / 1000))) }
            }
        }

        var failure: Error?
        var lines = 0
        do {
            var reader = LineReader(handle: input)
            while let line = try reader.next() {
                lines += 1
                if StopSignal.pending != nil { break }
                try replayer.feed(line: line, number: lines)
                let now = DispatchTime.now().uptimeNanoseconds
                if now - lastProgress > 1_000_000_000 {
                    lastProgress = now
                    log.progress("replay: \(replayer.frames) frames")
                }
            }
            if StopSignal.pending == nil { try replayer.finish() }
        } catch {
            failure = error
        }
        let childStatus = child.map { ExternalPipe.finish($0) }
        let frames = replayer.frames
        if failure == nil && StopSignal.pending == nil {
            for warning in consumerObjects.flatMap(\.finishWarnings) { log.warning(warning) }
        }
        if replayer.anchorMismatches > 0 {
            log.warning("the replay's anchor records differ from the recorded ones in \(replayer.anchorMismatches) frame\(replayer.anchorMismatches == 1 ? "" : "s") (first at t_ns \(replayer.firstMismatch_ns ?? 0)): the world settings or --convention differ from the live run's (give its --config and --convention)")
        }
        if let failure = failure as? StreamReplayError { throw CLIError.badInput("\(stream): \(failure.description)") }
        if let failure = failure as? LineReader.ReadError { throw CLIError.badInput("\(stream): \(failure.description)") }
        if let outcome = RunCommand.outcome(failure: failure, signal: StopSignal.pending, trajectoryError: nil,
                                            childStatus: childStatus, command: pipe, frames: frames, note: "") {
            throw outcome
        }
        if frames == 0 { throw CLIError.badInput("\(stream): no frame records") }
        log.line(String(format: "replay: %d frames in %.2f s wall", frames,
                        Double(DispatchTime.now().uptimeNanoseconds - wallStart) * 1e-9))
    }
}

/// Reads a file handle line by line (split on `\n`, the newline dropped), in 64 KiB chunks.
struct LineReader {
    /// A read failure.
    struct ReadError: Error, CustomStringConvertible { let description: String }

    private let handle: FileHandle
    private var buffer = Data()
    private var start = 0
    private var atEnd = false

    init(handle: FileHandle) { self.handle = handle }

    /// The next line, or nil at the end (a last line without its newline is returned too).
    mutating func next() throws -> Data? {
        while true {
            if let i = buffer[start...].firstIndex(of: 0x0A) {
                let line = buffer[start..<i]
                start = i + 1
                return Data(line)
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                return Data(line)
            }
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 65536) } catch {
                throw ReadError(description: "read failed: \(error.localizedDescription)")
            }
            guard let chunk, !chunk.isEmpty else { atEnd = true; continue }
            buffer.removeSubrange(..<start)
            start = 0
            buffer.append(chunk)
        }
    }
}
