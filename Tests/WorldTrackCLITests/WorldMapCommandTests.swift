import Foundation
import StreamFormat
import Testing
import TestSupport
import WorldMap

/// `worldtrack run --save-map` / `--load-map` end to end, on the shared 6 s simulated room (376×240).
@Suite("worldtrack run --save-map / --load-map (end to end)")
struct WorldMapCommandTests {
    static func wt() throws -> String { try ProcessRunner.product("worldtrack") }
    static func dataset() throws -> String { try RunCommandTests.dataset() }

    @Test("--save-map writes a map that reads back; refuses an existing file without --force (exit 2, untouched), replaces it with")
    func saveMap() throws {
        let dir = try TemporaryDirectory()
        let map = dir.path("room.wtmap")
        let first = try ProcessRunner.run(try Self.wt(), ["run", try Self.dataset(), "--no-stream", "--save-map", map], timeout: 300)
        #expect(first.status == 0, "\(first.stderr)")
        let saved = try WorldMapFile.read(path: map)
        #expect(saved.points.count >= 20 && saved.keyframes.count >= 3, "\(saved.points.count) points, \(saved.keyframes.count) keyframes")
        #expect(first.stderr.contains("run: saved the world map to \(map): \(saved.points.count) map points"), "\(first.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: map))

        let again = try ProcessRunner.run(try Self.wt(), ["run", try Self.dataset(), "--no-stream", "--quiet", "--save-map", map])
        #expect(again.status == 2 && again.stderr.contains(map) && again.stderr.contains("--force"), "\(again.stderr)")
        #expect(!again.stderr.contains("run: "), "no frame may run: \(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: map)) == bytes)

        let forced = try ProcessRunner.run(try Self.wt(), ["run", try Self.dataset(), "--no-stream", "--quiet", "--seconds", "4",
                                                           "--save-map", map, "--force"], timeout: 300)
        #expect(forced.status == 0, "\(forced.stderr)")
        let replaced = try WorldMapFile.read(path: map)
        #expect(replaced.points.count < saved.points.count, "4 s map \(replaced.points.count) points, 6 s map \(saved.points.count)")
        // Nothing else is left in the folder (the temporary file was renamed over the map).
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["room.wtmap"])
    }

    @Test("SIGINT: the run stops at a frame boundary, exits 130 and still writes the map of what it tracked")
    func saveMapOnInterrupt() throws {
        let dir = try TemporaryDirectory()
        let map = dir.path("room.wtmap")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.wt())
        process.arguments = ["run", try Self.dataset(), "--realtime", "--no-stream", "--quiet", "--save-map", map]
        let err = Pipe()
        process.standardError = err
        try process.run()
        Thread.sleep(forTimeInterval: 4.5)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 130, "\(stderr)")
        let saved = try WorldMapFile.read(path: map)
        #expect(saved.keyframes.count >= 1, "\(stderr)")
        // Saved at the frame where it stopped, before the end of the 6 s sequence.
        #expect(saved.keyframes.allSatisfy { $0.t_ns <= saved.saved_ns })
    }

    @Test("--load-map: a file that is not a map, of another version, or truncated is exit 2 naming it, before any frame")
    func badMaps() throws {
        let dir = try TemporaryDirectory()
        let good = WorldMapFile.encode(WorldMap(points: [WorldMap.MapPoint(id: 0, p_W: .zero, std_m: 0.01, descriptor: .init(words: .zero), lastSeen_ns: 0)]))
        var v2 = good; v2[8] = 2
        let cases: [(name: String, bytes: [UInt8], fragment: String)] = [
            ("notes.txt", Array("hello\n".utf8), "not a WorldTrack world map"),
            ("v2.wtmap", v2, "version 2 is not supported"),
            ("cut.wtmap", Array(good.prefix(good.count - 7)), "truncated"),
        ]
        for c in cases {
            let path = dir.path(c.name)
            try Data(c.bytes).write(to: URL(fileURLWithPath: path))
            let run = try ProcessRunner.run(try Self.wt(), ["run", try Self.dataset(), "--load-map", path])
            #expect(run.status == 2, "\(c.name): \(run.stderr)")
            #expect(run.stderr.contains("--load-map \(path)") && run.stderr.contains(c.fragment), "\(c.name): \(run.stderr)")
            #expect(run.stdout.isEmpty && !run.stderr.contains("run: "), "no frame may run: \(run.stderr)")
        }
        let missing = try ProcessRunner.run(try Self.wt(), ["run", try Self.dataset(), "--load-map", dir.path("none.wtmap")])
        #expect(missing.status == 2 && missing.stderr.contains("none.wtmap"), "\(missing.stderr)")
        let same = try ProcessRunner.run(try Self.wt(), ["run", try Self.dataset(), "--trajectory", dir.path("a.out"), "--save-map", dir.path("a.out")])
        #expect(same.status == 2 && same.stderr.contains("--trajectory and --save-map name the same file"), "\(same.stderr)")
        let noReuse = try ProcessRunner.run(try Self.wt(), ["run", try Self.dataset(), "--no-map-reuse", "--save-map", dir.path("x.wtmap")])
        #expect(noReuse.status == 2 && noReuse.stderr.contains("--no-map-reuse"), "\(noReuse.stderr)")
    }

    @Test("--load-map: frames say limited(relocalizing) until the map is found, then normal; stderr says which")
    func relocalizingState() throws {
        let dir = try TemporaryDirectory()
        let map = dir.path("room.wtmap")
        let first = try ProcessRunner.run(try Self.wt(), ["run", try Self.dataset(), "--no-stream", "--quiet", "--save-map", map], timeout: 300)
        #expect(first.status == 0, "\(first.stderr)")
        let run = try ProcessRunner.run(try Self.wt(), ["run", try Self.dataset(), "--load-map", map], timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        let states = try StreamRecordDecoder().decodeLines(run.stdout).compactMap(\.frame).map(\.tracking_state)
        let firstNormal = states.firstIndex(of: "normal") ?? states.count
        #expect(states.contains("limited(relocalizing)"))
        #expect(Set(states[..<firstNormal]).isSubset(of: ["notAvailable", "limited(relocalizing)"]), "\(Set(states))")
        #expect(!states.contains("limited(initializing)"))
        if firstNormal < states.count {
            #expect(run.stderr.contains("run: relocalised in \(map)"), "\(run.stderr)")
        } else {
            #expect(run.stderr.contains("was not found (never relocalised)"), "\(run.stderr)")
        }
    }
}
