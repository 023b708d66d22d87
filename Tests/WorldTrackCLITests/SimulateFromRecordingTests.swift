import Evaluation
import Foundation
import Geometry
import Sensors
import Simulation
import Testing
import TestSupport

/// `worldtrack simulate --from-recording` end to end, and `simulate`'s refusals of bad input (exit 2).
@Suite("worldtrack simulate --from-recording (end to end)")
struct SimulateFromRecordingTests {
    /// A 3 s stereo recording at 160×120 written by the simulator (ground truth and IMU at 200 Hz).
    static func recording() throws -> String {
        try SimSequenceCache.dataset("cli-recording-3s-160x120-stereo") { SimDatasets.smallConfig(seconds: 3, seed: 4, stereo: true) }
    }

    static func worldtrack(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(try ProcessRunner.product("worldtrack"), arguments, timeout: 300)
    }

    /// A copy of the recording with `change` applied (files removed or rewritten).
    static func brokenCopy(_ label: String, _ change: (String) throws -> Void) throws -> String {
        let copy = SimDatasets.temporaryPath(label)
        try FileManager.default.copyItem(atPath: try recording(), toPath: copy)
        try change(copy)
        return copy
    }

    @Test("writes a dataset: IMU lines byte for byte, frames at ground-truth stamps, scene.json's recording section; progress on stderr")
    func writesDataset() throws {
        let source = try Self.recording()
        let out = SimDatasets.temporaryPath("cli-from-rec")
        let run = try Self.worldtrack(["simulate", "--from-recording", source, "--stereo", "--start", "0.5", "--seconds", "1", "--out", out])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("frame 21/21") && run.stderr.contains("texture check: 42/42 images textured"))
        let imuIn = try String(contentsOfFile: source + "/mav0/imu0/data.csv", encoding: .utf8).split(separator: "\n")
        let imuOut = try String(contentsOfFile: out + "/mav0/imu0/data.csv", encoding: .utf8).split(separator: "\n")
        let start = try #require(imuIn.firstIndex(of: imuOut[1]))
        #expect(Array(imuOut.dropFirst()) == Array(imuIn[start..<(start + imuOut.count - 1)]))
        let stamps = try String(contentsOfFile: out + "/mav0/cam1/data.csv", encoding: .utf8).split(separator: "\n").dropFirst()
        let gtIn = try String(contentsOfFile: source + "/mav0/state_groundtruth_estimate0/data.csv", encoding: .utf8)
            .split(separator: "\n").dropFirst().map { $0.split(separator: ",")[0] }
        #expect(stamps.count == 21 && stamps.allSatisfy { gtIn.contains($0.split(separator: ",")[0]) })
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/scene.json"))) as? [String: Any]
        let rec = try #require(json?["recording"] as? [String: Any])
        #expect(rec["source"] as? String == source && rec["frames"] as? Int == 21 && rec["scene"] as? String == "fitted room")
        // The dataset it wrote is a valid input for the other subcommands.
        let info = try Self.worldtrack(["info", out])
        #expect(info.status == 0, "\(info.stderr)")
    }

    @Test("--level-groundtruth: a recording whose ground-truth world is tilted 0.5° is rendered level (gravity −z within 0.05°); without it the tilt stays")
    func levelsATiltedGroundTruth() throws {
        // The same recording with its ground truth in a world turned 0.5° about a horizontal axis (IMU unchanged): a
        // motion-capture frame levelled by hand.
        let tilted = try Self.brokenCopy("tilted-gt") { copy in
            let gtFile = copy + "/mav0/state_groundtruth_estimate0/data.csv"
            let R = SO3(angle: 0.5 * .pi / 180, axis: Vec3(0.6, 0.8, 0))
            let states = try TrajectoryFile.readASLGroundTruth(path: gtFile).map { s -> GroundTruthState in
                var t = s
                t.T_W_B = SE3(rotation: R * s.T_W_B.rotation, translation: R.act(s.T_W_B.translation))
                t.v_W = R.act(s.v_W)
                return t
            }
            try FileManager.default.removeItem(atPath: gtFile)
            try TrajectoryFile.writeASLGroundTruth(states, to: gtFile)
        }
        func tilt(_ dataset: String) throws -> Double {
            let states = try TrajectoryFile.readASLGroundTruth(path: dataset + "/mav0/state_groundtruth_estimate0/data.csv")
            let imu = try ASLDataset(path: dataset).imu.samples
            return try GroundTruthGravity.measure(groundTruth: states, imu: imu, window_s: 1).tilt_rad * 180 / .pi
        }
        let levelled = SimDatasets.temporaryPath("cli-from-rec-levelled"), plain = SimDatasets.temporaryPath("cli-from-rec-tilted")
        let run = try Self.worldtrack(["simulate", "--from-recording", tilted, "--seconds", "2.5", "--level-groundtruth", "--out", levelled])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("--level-groundtruth") && run.stderr.contains("gravity is −z"))
        let control = try Self.worldtrack(["simulate", "--from-recording", tilted, "--seconds", "2.5", "--out", plain])
        #expect(control.status == 0, "\(control.stderr)")
        #expect(abs(try tilt(tilted) - 0.5) < 0.05)
        #expect(try tilt(levelled) < 0.05)
        #expect(abs(try tilt(plain) - 0.5) < 0.05)
        // The IMU rows are still the recording's, byte for byte.
        let imuIn = try String(contentsOfFile: tilted + "/mav0/imu0/data.csv", encoding: .utf8).split(separator: "\n")
        let imuOut = try String(contentsOfFile: levelled + "/mav0/imu0/data.csv", encoding: .utf8).split(separator: "\n")
        let start = try #require(imuIn.firstIndex(of: imuOut[1]))
        #expect(Array(imuOut.dropFirst()) == Array(imuIn[start..<(start + imuOut.count - 1)]))
        // Only with --from-recording.
        let refused = try Self.worldtrack(["simulate", "--seconds", "1", "--level-groundtruth", "--out", SimDatasets.temporaryPath("cli-level-refused")])
        #expect(refused.status == 2 && refused.stderr.contains("only for --from-recording"), "\(refused.stderr)")
    }

    @Test("refusals exit 2 with a message naming the file and reason; nothing of the user's is overwritten")
    func refusals() throws {
        let source = try Self.recording()
        let out = SimDatasets.temporaryPath("cli-refused")
        func refused(_ args: [String], _ needles: [String], _ comment: String) throws {
            let r = try Self.worldtrack(["simulate"] + args)
            #expect(r.status == 2, "\(comment): exit \(r.status), \(r.stderr)")
            for n in needles { #expect(r.stderr.contains(n), "\(comment): '\(n)' not in: \(r.stderr)") }
            #expect(!FileManager.default.fileExists(atPath: out), "\(comment): wrote \(out)")
        }
        let noGT = try Self.brokenCopy("no-gt") { try FileManager.default.removeItem(atPath: $0 + "/mav0/state_groundtruth_estimate0") }
        try refused(["--from-recording", noGT, "--out", out], [noGT, "no ground truth"], "no ground truth")
        try refused(["--from-recording", source, "--seconds", "10", "--out", out], ["cover only", "--seconds 10"], "span past the data")
        try refused(["--from-recording", source, "--start", "2.5", "--seconds", "1", "--out", out], ["cover only"], "start + seconds past the data")
        try refused(["--from-recording", source, "--start", "7", "--out", out], ["--start 7", "past the end"], "start past the data")
        let noCam0 = try Self.brokenCopy("no-cam0") { try FileManager.default.removeItem(atPath: $0 + "/mav0/cam0/sensor.yaml") }
        try refused(["--from-recording", noCam0, "--out", out], [noCam0 + "/mav0/cam0/sensor.yaml", "missing file"], "no cam0 sensor.yaml")
        let noCam1 = try Self.brokenCopy("no-cam1") { try FileManager.default.removeItem(atPath: $0 + "/mav0/cam1") }
        try refused(["--from-recording", noCam1, "--stereo", "--out", out], [noCam1 + "/mav0/cam1/sensor.yaml", "--stereo"], "stereo without cam1")
        try refused(["--from-recording", "/nonexistent/recording", "--out", out], ["/nonexistent/recording"], "missing recording")
        // Bad numbers, with and without --from-recording.
        try refused(["--from-recording", source, "--seconds", "-1", "--out", out], ["--seconds", "-1"], "negative seconds")
        try refused(["--from-recording", source, "--seconds", "nan", "--out", out], ["--seconds", "nan"], "NaN seconds")
        try refused(["--from-recording", source, "--start", "-2", "--out", out], ["--start", "-2"], "negative start")
        try refused(["--from-recording", source, "--trajectory", "orbit", "--out", out], ["--trajectory", "--from-recording"], "trajectory with a recording")
        try refused(["--seconds", "-1", "--out", out], ["--seconds must be a number > 0 (got -1.0)"], "simulate --seconds -1")
        try refused(["--seconds", "1", "--shake-at", "5", "--out", out], ["--shake-at 5.0", "not before the end"], "shake after the end")
        try refused(["--out", out], ["--seconds is required"], "no --seconds")
        try refused(["--seconds", "1", "--arrangement-seed", "3", "--out", out], ["--arrangement-seed", "only for --from-recording"],
                    "arrangement without a recording")
        let sceneFile = SimDatasets.temporaryPath("cli-arrangement-scene") + ".json"
        try Scene.room().jsonData().write(to: URL(fileURLWithPath: sceneFile))
        defer { try? FileManager.default.removeItem(atPath: sceneFile) }
        try refused(["--from-recording", source, "--scene", sceneFile, "--arrangement-seed", "3", "--out", out],
                    ["--arrangement-seed", "scene file"], "arrangement of a scene file")

        // A non-empty --out is refused, before the scene is fitted, and left as it was.
        let dir = try TemporaryDirectory()
        let mine = dir.path + "/notes.txt"
        try Data("mine".utf8).write(to: URL(fileURLWithPath: mine))
        let r = try Self.worldtrack(["simulate", "--from-recording", source, "--seconds", "0.2", "--out", dir.path])
        #expect(r.status == 2 && r.stderr.contains(dir.path) && r.stderr.contains("not empty"))
        #expect(!r.stderr.contains("fitted"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["notes.txt"])
        #expect(try String(contentsOfFile: mine, encoding: .utf8) == "mine")
    }

    @Test("bench-suite: entries with the same simulate arguments share one from-recording dataset; an absent recording is skipped, not failed")
    func benchSuiteFromRecording() throws {
        let source = try Self.recording()
        let dir = try TemporaryDirectory()
        let manifest = dir.path + "/suite.json"
        let sim = #"["--from-recording", "\#(source)", "--stereo", "--seconds", "2.5"]"#
        try Data("""
        {"entries": [{"name": "rec-mono", "simulate": \(sim)}, {"name": "rec-stereo", "stereo": true, "simulate": \(sim)},
                     {"name": "gone", "simulate": ["--from-recording", "no-such-recording"]}]}
        """.utf8).write(to: URL(fileURLWithPath: manifest))
        let run = try ProcessRunner.run(try ProcessRunner.product("worldtrack"), ["bench-suite", manifest, "--jobs", "2", "--out", dir.path + "/out"], timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/out/datasets") == ["rec-mono"])
        let results = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.path + "/out/results.json"))) as? [String: Any]
        let entries = try #require(results?["entries"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: entries.map { ($0["name"] as? String ?? "", $0) })
        for name in ["rec-mono", "rec-stereo"] {
            let ate = try #require(byName[name]?["ate_rmse_m"] as? Double, "\(name): \(byName[name] ?? [:])")
            #expect(ate > 0 && ate < 0.2)
        }
        // The relative recording path was resolved against the manifest's folder, and the entry skipped.
        #expect((byName["gone"]?["skipped"] as? String)?.contains(dir.path + "/no-such-recording") == true)
        #expect(run.stdout.contains("| gone | mono | posyaw |") && run.stdout.contains("skipped"))
    }
}
