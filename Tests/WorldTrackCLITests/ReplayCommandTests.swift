import Foundation
import StreamFormat
import Testing
import TestSupport

/// `worldtrack replay`: consumers driven from a recorded stream give the live run's records byte for byte.
@Suite("worldtrack replay (end to end)")
struct ReplayCommandTests {
    /// The first 12 s of a 30 s simulated room walk (752×480; shared with the stream-field tests).
    static func dataset() throws -> String { try SimSequenceCache.roomHandheld(seconds: 30, seed: 21) }

    static func worldtrack(_ arguments: [String], timeout: Double = 300) throws -> ProcessRunner.Result {
        try ProcessRunner.run(try ProcessRunner.product("worldtrack"), arguments, timeout: timeout)
    }

    /// Taps at 5 s and 9 s (a floor-to-table polyline and a two-point floor measurement) and a third one at 10.5 s.
    static let taps = """
    [{"t_s": 5, "pixels": [[300, 300], [450, 320]], "label": "a"},
     {"t_s": 9, "pixels": [[200, 350], [376, 240], [500, 400]], "label": "b"},
     {"t_s": 10.5, "pixels": [[100, 100], [600, 400]]}]
    """

    @Test("a stream recorded without consumers, replayed with measure and cursor, equals the live run with them byte for byte")
    func replayEqualsLiveRun() throws {
        let path = try Self.dataset()
        let dir = try TemporaryDirectory()
        let tapsFile = dir.path + "/taps.json"
        try Self.taps.write(toFile: tapsFile, atomically: true, encoding: .utf8)
        let consumers = ["--consumer", "measure:taps=\(tapsFile)", "--consumer", "cursor:place=6,9"]
        let common = ["run", path, "--seconds", "12", "--quiet", "--stream-world-input", "--stream-points"]

        let recorded = try Self.worldtrack(common)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let live = try Self.worldtrack(common + consumers)
        #expect(live.status == 0, "\(live.stderr)")
        let streamFile = dir.path + "/recorded.jsonl"
        try recorded.stdout.write(toFile: streamFile, atomically: true, encoding: .utf8)
        let replay = try Self.worldtrack(["replay", streamFile, "--quiet"] + consumers)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(!replay.stderr.contains("differ"), "\(replay.stderr)")

        // Not vacuous: the consumers changed the stream (records of their own, user anchors in view), and the
        // world layer had planes to raycast onto.
        let records = try StreamRecordDecoder().decodeLines(live.stdout)
        #expect(records.compactMap(\.measurement).count == 3)
        #expect(records.compactMap(\.cursor).count == records.compactMap(\.frame).count)
        #expect(records.compactMap(\.cursor).contains { $0.state == "onPlane" })
        #expect(records.compactMap(\.anchor).contains { $0.type == "anchor.added" && $0.kind == "plane" })
        #expect(records.compactMap(\.anchor).filter { $0.type == "anchor.added" && $0.kind == "user" }.count == 2)
        #expect(records.compactMap(\.worldInput).count == records.compactMap(\.frame).count)
        #expect(live.stdout != recorded.stdout)

        #expect(replay.stdout == live.stdout)
        if replay.stdout != live.stdout {
            let a = live.stdout.split(separator: "\n"), b = replay.stdout.split(separator: "\n")
            let i = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
            Issue.record("first difference at line \(i + 1) of \(a.count) live / \(b.count) replayed")
        }
    }

    @Test("other world settings than the live run's are reported; the plane records then differ")
    func differentWorldSettingsReported() throws {
        let path = try Self.dataset()
        let dir = try TemporaryDirectory()
        let recorded = try Self.worldtrack(["run", path, "--seconds", "8", "--quiet", "--stream-world-input"])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let streamFile = dir.path + "/recorded.jsonl"
        try recorded.stdout.write(toFile: streamFile, atomically: true, encoding: .utf8)
        let same = try Self.worldtrack(["replay", streamFile, "--quiet"])
        #expect(same.status == 0 && !same.stderr.contains("differ"), "\(same.stderr)")
        #expect(same.stdout == recorded.stdout)

        let config = dir.path + "/world.yaml"
        try "world:\n  detectionDelayFrames: 0\n".write(toFile: config, atomically: true, encoding: .utf8)
        let other = try Self.worldtrack(["replay", streamFile, "--quiet", "--config", config])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(other.stderr.contains("differ from the recorded ones"), "\(other.stderr)")
    }

    @Test("bad input: no world_input records, a line that is not a record, a missing file, burst (exit 2, clear message)")
    func badInput() throws {
        let path = try Self.dataset()
        let dir = try TemporaryDirectory()
        let plain = try Self.worldtrack(["run", path, "--seconds", "1", "--quiet"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let plainFile = dir.path + "/plain.jsonl"
        try plain.stdout.write(toFile: plainFile, atomically: true, encoding: .utf8)
        let noInput = try Self.worldtrack(["replay", plainFile])
        #expect(noInput.status == 2 && noInput.stderr.contains("--stream-world-input"), "\(noInput.stderr)")

        let withInput = try Self.worldtrack(["run", path, "--seconds", "1", "--quiet", "--stream-world-input"])
        var lines = withInput.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[3] = "{\"type\": \"frame\", \"oops\""
        let broken = dir.path + "/broken.jsonl"
        try lines.joined(separator: "\n").write(toFile: broken, atomically: true, encoding: .utf8)
        let bad = try Self.worldtrack(["replay", broken])
        #expect(bad.status == 2 && bad.stderr.contains("line 4"), "\(bad.stderr)")

        let missing = try Self.worldtrack(["replay", dir.path + "/nope.jsonl"])
        #expect(missing.status == 2 && missing.stderr.contains("no such file"), "\(missing.stderr)")
        let burst = try Self.worldtrack(["replay", plainFile, "--consumer", "burst:every=2,count=2,out=\(dir.path)/b"])
        #expect(burst.status == 2 && burst.stderr.contains("images"), "\(burst.stderr)")
    }
}
