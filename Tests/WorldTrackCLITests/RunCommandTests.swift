import Foundation
import Simulation
import StreamFormat
import Testing
import TestSupport

/// `worldtrack run` and `worldtrack bench-suite` end to end, as a user runs them, on a small simulated dataset.
@Suite("worldtrack run and bench-suite (end to end)")
struct RunCommandTests {
    /// A 6 s simulated room walk at 376×240 (2 s at rest, then walking), shared by the tests of this process.
    static func dataset() throws -> String {
        try SimSequenceCache.dataset("cli-room-6s-376x240") { SimDatasets.smallConfig(seconds: 6, seed: 5, width: 376, height: 240) }
    }

    /// Runs the built `worldtrack` with `arguments`, allowing up to 300 s.
    static func worldtrack(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(try ProcessRunner.product("worldtrack"), arguments, timeout: 300)
    }

    /// The records of a stream, decoded as `StreamRecordDecoder` reads them (throws on a line that is not a record).
    static func records(_ text: String) throws -> [DecodedStreamRecord] {
        try StreamRecordDecoder().decodeLines(text)
    }

    @Test("the stream is one JSON record per line with type, t_ns and schema; one frame record per image, in time order")
    func streamRecords() throws {
        let path = try Self.dataset()
        let run = try Self.worldtrack(["run", path, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let records = try Self.records(run.stdout)
        #expect(records.count == run.stdout.split(separator: "\n").count)
        #expect(records.allSatisfy { $0.header.schema == StreamSchema.version })
        let frames = records.compactMap(\.frame)
        #expect(frames.count == 121)   // 6 s at 20 Hz, both ends included
        let times = frames.map(\.t_ns)
        #expect(times == times.sorted() && Set(times).count == times.count)
        // The walk starts after 2 s at rest: the tracker must be normal well before the end.
        #expect(frames.suffix(60).allSatisfy { $0.tracking_state == "normal" })
        // Progress and the summary go to stderr, never into the stream.
        #expect(run.stderr.contains("run: 121 frames"))
    }

    @Test("--trajectory writes TUM poses and refuses to overwrite an existing file (exit 2, file untouched)")
    func trajectoryFile() throws {
        let path = try Self.dataset()
        let dir = try TemporaryDirectory()
        let tum = dir.path + "/est.tum"
        let first = try Self.worldtrack(["run", path, "--no-stream", "--quiet", "--trajectory", tum])
        #expect(first.status == 0, "\(first.stderr)")
        let written = try String(contentsOfFile: tum, encoding: .utf8)
        let rows = written.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(rows.count >= 80 && rows.allSatisfy { $0.split(separator: " ").count == 8 })

        let again = try Self.worldtrack(["run", path, "--no-stream", "--quiet", "--trajectory", tum])
        #expect(again.status == 2)
        #expect(again.stderr.contains(tum) && again.stderr.contains("--force"))
        #expect(try String(contentsOfFile: tum, encoding: .utf8) == written)
    }

    @Test("--pipe feeds the same stream to a program's standard input")
    func pipe() throws {
        let path = try Self.dataset()
        let dir = try TemporaryDirectory()
        let out = dir.path + "/piped.jsonl"
        let run = try Self.worldtrack(["run", path, "--quiet", "--seconds", "1", "--pipe", "cat > '\(out)'"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        let records = try Self.records(try String(contentsOfFile: out, encoding: .utf8))
        #expect(records.compactMap(\.frame).count == 21)
        // A failing consumer program is reported, not ignored.
        let failing = try Self.worldtrack(["run", path, "--quiet", "--seconds", "1", "--pipe", "cat > /dev/null; exit 3"])
        #expect(failing.status == 1 && failing.stderr.contains("status 3"))
    }

    @Test("bad input: a missing dataset, a bad consumer spec, bad --seconds")
    func badInput() throws {
        let wt = try ProcessRunner.product("worldtrack")
        let missing = try ProcessRunner.run(wt, ["run", "/nonexistent/dataset"])
        #expect(missing.status == 2 && missing.stderr.contains("/nonexistent/dataset"))
        let consumer = try ProcessRunner.run(wt, ["run", try Self.dataset(), "--consumer", "teleport:x=1"])
        #expect(consumer.status == 2 && consumer.stderr.contains("teleport"))
        let seconds = try ProcessRunner.run(wt, ["run", try Self.dataset(), "--seconds=-1"])
        #expect(seconds.status != 0 && seconds.stderr.contains("--seconds"))
    }

    @Test("--start: skips the first S s (with --seconds counted from there); negative or past the last frame is exit 2")
    func start() throws {
        let path = try Self.dataset()
        let all = try Self.worldtrack(["run", path, "--quiet", "--seconds", "0.01"])
        let datasetFirst = try #require(try Self.records(all.stdout).compactMap(\.frame).first?.t_ns)
        let run = try Self.worldtrack(["run", path, "--quiet", "--start", "3", "--seconds", "1"])
        #expect(run.status == 0, "\(run.stderr)")
        let frames = try Self.records(run.stdout).compactMap(\.frame)
        #expect(frames.count == 21)   // 3 s … 4 s at 20 Hz, both ends included
        #expect(frames.first.map { $0.t_ns - datasetFirst } == 3_000_000_000)
        #expect(run.stderr.contains("run: 21 frames (1.0 s of data)"), "\(run.stderr)")

        let negative = try Self.worldtrack(["run", path, "--start", "-1"])
        #expect(negative.status == 2 && negative.stderr.contains("--start -1") && negative.stderr.contains("≥ 0"), "\(negative.stderr)")
        let beyond = try Self.worldtrack(["run", path, "--start", "1000"])
        #expect(beyond.status == 2 && beyond.stderr.contains("no camera frames after 1000"), "\(beyond.stderr)")
        #expect(beyond.stdout.isEmpty)
    }

    @Test("bench-suite: runs and evaluates each entry of its shard (ATE, RPE); a failed entry is listed and left out of the mean, exit 1; bad manifests exit 2")
    func benchSuite() throws {
        let wt = try ProcessRunner.product("worldtrack")
        let path = try Self.dataset()
        let dir = try TemporaryDirectory()
        let manifest = dir.path + "/suite.json"
        try Data("""
        {"entries": [{"name": "a", "dataset": "\(path)"}, {"name": "b", "dataset": "\(path)", "align": "se3"},
                     {"name": "c", "dataset": "\(path)", "seconds": 4}, {"name": "d", "dataset": "\(dir.path)/absent"}]}
        """.utf8).write(to: URL(fileURLWithPath: manifest))
        let run = try ProcessRunner.run(wt, ["bench-suite", manifest, "--shard", "1/2", "--jobs", "2", "--out", dir.path + "/out"], timeout: 300)
        // "d" fails (its dataset is absent): exit 1, naming it.
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("1 of 2 entries failed (d)"), "\(run.stderr)")
        // Shard 1 of 2 takes entries 1, 3, … (0-based): "b" and "d".
        let results = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.path + "/out/results-shard-1-of-2.json"))) as? [String: Any]
        let entries = try #require(results?["entries"] as? [[String: Any]])
        #expect(entries.map { $0["name"] as? String } == ["b", "d"])
        let ate = try #require(entries.first?["ate_rmse_m"] as? Double)
        #expect(ate > 0 && ate < 0.1)   // a real evaluation against the simulator's ground truth
        #expect((entries.first?["alignment"] as? String) == "se3")
        // RPE: per length as eval gives it, and the headline figures, which are the means over the lengths.
        let rpe = try #require(entries.first?["rpe"] as? [[String: Any]])
        let measured = rpe.filter { ($0["pairs"] as? Int ?? 0) > 0 }
        #expect(rpe.count == 5 && !measured.isEmpty)
        let transPct = try #require(entries.first?["rpe_trans_pct"] as? Double)
        let meanOfLengths = measured.compactMap { $0["trans_mean_pct"] as? Double }.reduce(0, +) / Double(measured.count)
        #expect(abs(transPct - meanOfLengths) < 1e-9 && transPct > 0 && transPct < 50)
        #expect(try #require(entries.first?["rpe_rot_deg"] as? Double) > 0)
        // The tilt error, as given and against gravity (the simulator's world is level: the two agree).
        let tilt = try #require(entries.first?["tilt_median_deg"] as? Double)
        let tiltVsGravity = try #require(entries.first?["tilt_vs_gravity_median_deg"] as? Double)
        #expect(tilt > 0 && tilt < 1 && abs(tilt - tiltVsGravity) < 0.05, "\(tilt) / \(tiltVsGravity)")
        // The mean is over "b" only, and says so; "d" is listed with its error.
        #expect(results?["mean_over"] as? Int == 1)
        #expect(results?["mean_ate_rmse_m"] as? Double == ate)
        #expect(results?["mean_rpe_trans_pct"] as? Double == transPct)
        let failed = try #require(results?["failed"] as? [[String: Any]])
        #expect(failed.count == 1 && failed.first?["name"] as? String == "d")
        #expect((failed.first?["error"] as? String)?.contains("worldtrack run") == true)
        let shard = try #require(results?["shard"] as? [String: Any])
        #expect(shard["index"] as? Int == 1 && shard["count"] as? Int == 2)
        #expect((results?["manifest"] as? [String: Any])?["entries"] as? [String] == ["a", "b", "c", "d"])
        #expect(FileManager.default.fileExists(atPath: dir.path + "/out/results-shard-1-of-2.md"))
        #expect(run.stdout.contains("| b | mono | se3 |"))
        #expect(run.stdout.contains("| d | mono | posyaw | — |") && run.stdout.contains("**failed**"))
        #expect(run.stdout.contains("| **mean of 1 of 2** |"))
        #expect(run.stdout.contains("\nFailed:\n- d: "))

        try Data(#"{"entries": [{"name": "x"}]}"#.utf8).write(to: URL(fileURLWithPath: manifest))
        let bad = try ProcessRunner.run(wt, ["bench-suite", manifest, "--out", dir.path + "/out2"])
        #expect(bad.status == 2 && bad.stderr.contains("exactly one of"))
        try Data(#"{"entries": [{"name": "x", "dataset": "/x", "start": -1}]}"#.utf8).write(to: URL(fileURLWithPath: manifest))
        let badStart = try ProcessRunner.run(wt, ["bench-suite", manifest, "--out", dir.path + "/out2"])
        #expect(badStart.status == 2 && badStart.stderr.contains("start must be ≥ 0"), "\(badStart.stderr)")
    }

    @Test("bench-suite: an entry's \"start\" starts its run that far into the dataset (run --start)")
    func benchSuiteStart() throws {
        let wt = try ProcessRunner.product("worldtrack")
        let path = try Self.dataset()
        let dir = try TemporaryDirectory()
        let manifest = dir.path + "/suite.json"
        try Data(#"{"entries": [{"name": "late", "dataset": "\#(path)", "start": 2.5, "seconds": 3}]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))
        let run = try ProcessRunner.run(wt, ["bench-suite", manifest, "--out", dir.path + "/out"], timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        let tum = try String(contentsOfFile: dir.path + "/out/runs/late/trajectory.tum", encoding: .utf8)
        let times = tum.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { Double($0.split(separator: " ")[0]) }
        let frames = try FileManager.default.contentsOfDirectory(atPath: path + "/mav0/cam0/data").compactMap { Double($0.prefix(while: \.isNumber)) }
        let first = try #require(frames.min()) * 1e-9
        // The estimate covers [2.5 s, 5.5 s] of the dataset, not its start. The trajectory file is stamped on the IMU
        // clock, t_cam + t̂_d, and the estimated time offset t̂_d may reach ±50 ms (`TimeOffsetOptions.maxMagnitude_s`).
        let slack = 0.05
        #expect(try #require(times.min()) >= first + 2.5 - slack && times.max()! <= first + 5.5 + slack,
                "\(times.min() ?? -1)…\(times.max() ?? -1) vs first frame \(first)")
    }
}
