import Consumers
import Foundation
import Pipeline
import Sensors
import Testing
import TestSupport

/// The stream is a function of the input: plane detection and the dynamic initialiser's tries run on worker threads,
/// and with `threads = 2` the front half (decode, frontend) runs ahead on two others, but two runs of the same dataset
/// give the same bytes, whatever the thread count.
@Suite("Stream determinism (simulated room, whole pipeline)")
struct StreamDeterminismTests {
    /// The JSON-Lines stream of the first `seconds` of `path`, as `worldtrack run` writes it.
    static func stream(_ path: String, seconds: Double, options base: PipelineOptions = PipelineOptions()) throws -> Data {
        try run(path, seconds: seconds, options: base).bytes
    }

    /// The stream and the run's summary.
    static func run(_ path: String, seconds: Double, options base: PipelineOptions = PipelineOptions()) throws
        -> (bytes: Data, summary: PipelineSummary) {
        var options = base
        options.max_s = seconds
        let writer = StreamWriter(handle: FileHandle.nullDevice)
        var bytes = Data()
        let summary = try TrackingPipeline(dataset: try ASLDataset(path: path), options: options).run(onFrame: { r in
            for record in r.records {
                if let data = try? writer.encode(record) { bytes.append(data); bytes.append(0x0A) }
            }
        })
        return (bytes, summary)
    }

    @Test("two runs of 20 s of the room give byte-identical streams, with planes in them and a start in motion")
    func twoRunsSameBytes() throws {
        // The sequence WorldAcceptanceTests uses (simulated once per test process).
        let path = try SimSequenceCache.roomHandheld(seconds: 60, seed: 12, startMoving: true)
        let (first, summary) = try Self.run(path, seconds: 20)
        let second = try Self.stream(path, seconds: 20)
        #expect(first.count > 100_000)
        // It starts in motion: the dynamic initialiser's tries ran on their worker thread (the `initWorker` row).
        #expect(summary.stages.contains { $0.stage == .initWorker && $0.max_ms > 0 })
        let lines = String(decoding: first, as: UTF8.self).split(separator: "\n")
        #expect(lines.contains { $0.contains("\"type\":\"anchor.added\"") && $0.contains("\"kind\":\"plane\"") })
        #expect(first == second)
    }

    @Test("two threads (decode and frontend ahead on their own threads) give the same bytes as one")
    func twoThreadsSameBytesAsOne() throws {
        let path = try SimSequenceCache.roomHandheld(seconds: 60, seed: 12, startMoving: true)
        var two = PipelineOptions()
        two.threads = 2
        let one = try Self.stream(path, seconds: 20)
        #expect(one.count > 100_000)
        #expect(try Self.stream(path, seconds: 20, options: two) == one)
    }

    @Test("a run stopped part-way with two threads stops at the same frame as with one, its threads joined")
    func stopPartWayWithTwoThreads() throws {
        let path = try SimSequenceCache.roomHandheld(seconds: 60, seed: 12, startMoving: true)
        func frames(threads: Int) throws -> (Int, Bool, Int) {
            var options = PipelineOptions()
            options.threads = threads
            options.max_s = 20
            var seen = 0
            let summary = try TrackingPipeline(dataset: try ASLDataset(path: path), options: options)
                .run(onFrame: { _ in seen += 1 }, shouldStop: { seen >= 37 })
            return (summary.frames, summary.stoppedEarly, summary.bodyTrajectory.count)
        }
        let one = try frames(threads: 1)
        #expect(one.0 == 37 && one.1)
        // The front half's threads had decoded and tracked frames beyond the stop: they are dropped, not reported.
        #expect(try frames(threads: 2) == one)
    }
}
