import Consumers
import Foundation
import Pipeline
import Sensors
import Testing
import TestSupport

/// The stream is a function of the input: plane detection runs on a worker thread, and with `threads = 2` the
/// frontend runs ahead on another, but two runs of the same dataset give the same bytes, whatever the thread count.
@Suite("Stream determinism (simulated room, whole pipeline)")
struct StreamDeterminismTests {
    /// The JSON-Lines stream of the first `seconds` of `path`, as `worldtrack run` writes it.
    static func stream(_ path: String, seconds: Double, options base: PipelineOptions = PipelineOptions()) throws -> Data {
        var options = base
        options.max_s = seconds
        let writer = StreamWriter(handle: FileHandle.nullDevice)
        var bytes = Data()
        _ = try TrackingPipeline(dataset: try ASLDataset(path: path), options: options).run(onFrame: { r in
            for record in r.records {
                if let data = try? writer.encode(record) { bytes.append(data); bytes.append(0x0A) }
            }
        })
        return bytes
    }

    @Test("two runs of 20 s of the room give byte-identical streams, with planes in them")
    func twoRunsSameBytes() throws {
        // The sequence WorldAcceptanceTests uses (simulated once per test process).
        let path = try SimSequenceCache.roomHandheld(seconds: 60, seed: 12, startMoving: true)
        let first = try Self.stream(path, seconds: 20)
        let second = try Self.stream(path, seconds: 20)
        #expect(first.count > 100_000)
        let lines = String(decoding: first, as: UTF8.self).split(separator: "\n")
        #expect(lines.contains { $0.contains("\"type\":\"anchor.added\"") && $0.contains("\"kind\":\"plane\"") })
        #expect(first == second)
    }

    @Test("two threads (frontend a frame ahead) give the same bytes as one")
    func twoThreadsSameBytesAsOne() throws {
        let path = try SimSequenceCache.roomHandheld(seconds: 60, seed: 12, startMoving: true)
        var two = PipelineOptions()
        two.threads = 2
        let one = try Self.stream(path, seconds: 20)
        #expect(one.count > 100_000)
        #expect(try Self.stream(path, seconds: 20, options: two) == one)
    }
}
