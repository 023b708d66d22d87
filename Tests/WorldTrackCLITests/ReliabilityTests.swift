import Foundation
import Testing
import TestSupport

/// Issue 16, "nothing lost, nothing silently wrong": `worldtrack run` keeps its outputs however it ends, reports
/// child and consumer failures clearly, skips corrupt images; `eval` refuses or flags what it cannot judge.
/// One end-to-end test per case, running the built `worldtrack` as a user does.
@Suite("reliability: outputs survive, failures are clear (end to end)")
struct ReliabilityTests {
    static func wt() throws -> String { try ProcessRunner.product("worldtrack") }
    static func dataset() throws -> String { try RunCommandTests.dataset() }

    /// A copy of the shared 6 s dataset that a test may break.
    static func copyOfDataset(in dir: TemporaryDirectory) throws -> String {
        let copy = dir.path("dataset")
        try FileManager.default.copyItem(atPath: try dataset(), toPath: copy)
        return copy
    }

    /// Data rows of a TUM file; each must be a whole 8-column line.
    static func tumRows(_ path: String) throws -> [Substring] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.isEmpty || text.hasSuffix("\n"), "\(path) ends with a torn line")
        let rows = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(rows.allSatisfy { $0.split(separator: " ").count == 8 }, "\(path) has a malformed row")
        return rows
    }

    /// Runs a bash script (the worldtrack path is $WT); returns the result.
    static func bash(_ script: String, timeout: TimeInterval = 120) throws -> ProcessRunner.Result {
        try ProcessRunner.run("/bin/bash", ["-c", "WT='\(try wt())'\n" + script], timeout: timeout)
    }

    static func lastLine(_ text: String) -> String { String(text.split(separator: "\n").last ?? "") }

    // MARK: Outputs survive a run that stops part-way

    @Test("a PNG with a valid header and end but random image data: one warning, frame skipped and counted, run completes")
    func corruptImageIsSkipped() throws {
        let dir = try TemporaryDirectory()
        let data = try Self.copyOfDataset(in: dir)
        let images = data + "/mav0/cam0/data"
        let names = try FileManager.default.contentsOfDirectory(atPath: images).sorted()
        let victim = images + "/" + names[60]
        try Data(CorruptPNG.randomImageData(from: [UInt8](try Data(contentsOf: URL(fileURLWithPath: victim))))).write(to: URL(fileURLWithPath: victim))

        // info's header check passes the file; --check-images decodes it and names it (a warning: run skips it).
        let info = try ProcessRunner.run(try Self.wt(), ["info", data])
        #expect(info.status == 0 && !info.stdout.contains(names[60]))
        let checked = try ProcessRunner.run(try Self.wt(), ["info", data, "--check-images", "--json"])
        #expect(checked.status == 0, "\(checked.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(checked.stdout.utf8)) as? [String: Any]
        let cameras = report?["cameras"] as? [[String: Any]]
        #expect((cameras?.first?["undecodable_images"] as? [String]) == [names[60]])
        let problems = report?["problems"] as? [[String: Any]] ?? []
        #expect(problems.contains { ($0["file"] as? String)?.hasSuffix(names[60]) == true && ($0["severity"] as? String) == "warning" })

        let tum = dir.path("est.tum"), summary = dir.path("run.json")
        let run = try ProcessRunner.run(try Self.wt(), ["run", data, "--quiet", "--trajectory", tum, "--summary-json", summary], timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 1 && warnings[0].contains(victim) && warnings[0].contains("skipped"), "\(run.stderr)")
        #expect(!run.stderr.contains("libpng"), "a raw libpng line reached stderr")
        #expect(run.stderr.components(separatedBy: victim).count == 2, "the path is printed once")
        #expect(run.stderr.contains("skipped 1 frame whose image could not be decoded"))
        #expect(Self.jsonLinesFrames(run.stdout) == 120)
        #expect(try Self.tumRows(tum).count >= 80)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as? [String: Any]
        #expect((json?["skipped_images"] as? [String])?.count == 1)
        #expect((json?["completed"] as? Bool) == true)
        // With the front half on its own threads the skipped frame is reported the same way, in the same place.
        let threaded = try ProcessRunner.run(try Self.wt(), ["run", data, "--quiet", "--threads", "2"], timeout: 300)
        #expect(threaded.status == 0 && threaded.stdout == run.stdout, "\(threaded.stderr)")
        #expect(threaded.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") } == warnings)
    }

    @Test("a colour PNG with random image data: the same one clean warning as a grayscale one, no libpng line")
    func corruptColourImageIsSkipped() throws {
        let dir = try TemporaryDirectory()
        let data = try Self.copyOfDataset(in: dir)
        let images = data + "/mav0/cam0/data"
        let names = try FileManager.default.contentsOfDirectory(atPath: images).sorted()
        let victim = images + "/" + names[60]
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: victim)))
        let corrupt = CorruptPNG.randomImageData(from: original, colourType: 2)
        #expect(corrupt[25] == 2) // IHDR colour type: RGB (the libpng path decodes it, not the grayscale one)
        try Data(corrupt).write(to: URL(fileURLWithPath: victim))

        let tum = dir.path("est.tum"), summary = dir.path("run.json")
        let run = try ProcessRunner.run(try Self.wt(), ["run", data, "--quiet", "--no-stream", "--trajectory", tum, "--summary-json", summary], timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 1 && warnings[0].contains(victim) && warnings[0].contains("skipped")
                    && warnings[0].contains("corrupt PNG"), "\(run.stderr)")
        #expect(!run.stderr.contains("libpng"), "a raw libpng line reached stderr: \(run.stderr)")
        #expect(run.stderr.components(separatedBy: victim).count == 2, "the path is printed once")
        #expect(run.stderr.contains("skipped 1 frame whose image could not be decoded"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as? [String: Any]
        #expect((json?["skipped_images"] as? [String])?.count == 1)
    }

    static func jsonLinesFrames(_ stdout: String) -> Int {
        stdout.split(separator: "\n").filter { $0.contains("\"type\":\"frame\"") }.count
    }

    @Test("--pipe program fails mid-stream: exit 1 naming the command and status; the trajectory keeps every pose")
    func pipeFailureKeepsTrajectory() throws {
        let dir = try TemporaryDirectory()
        let tum = dir.path("est.tum")
        let run = try ProcessRunner.run(try Self.wt(), ["run", try Self.dataset(), "--quiet", "--trajectory", tum,
                                                        "--pipe", "head -n 150 > /dev/null; exit 3"], timeout: 300)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(Self.lastLine(run.stderr).contains("'head -n 150 > /dev/null; exit 3' exited with status 3"), "\(run.stderr)")
        #expect(!run.stderr.contains("Error Domain"))
        let rows = try Self.tumRows(tum)
        #expect(rows.count >= 20, "\(rows.count) poses kept")
        #expect(Self.lastLine(run.stderr).contains("keeps the \(rows.count) poses"))
    }

    @Test("stdout closed by its reader (| head): exit 141, a clear last line, the trajectory keeps its poses")
    func closedStdout() throws {
        let dir = try TemporaryDirectory()
        let tum = dir.path("est.tum")
        let run = try Self.bash("\"$WT\" run '\(try Self.dataset())' --quiet --trajectory '\(tum)' | head -n 60 > /dev/null\necho \"status ${PIPESTATUS[0]}\" >&2")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.last == "status 141", "\(run.stderr)")
        #expect(lines.dropLast().last?.contains("standard output was closed by its reader") == true, "\(run.stderr)")
        #expect(try Self.tumRows(tum).count >= 10)
    }

    @Test("SIGINT and SIGTERM: exit 130 / 143 after saving; the trajectory holds the poses so far, written as the run went")
    func signals() throws {
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            let dir = try TemporaryDirectory()
            let tum = dir.path("est.tum")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try Self.wt())
            process.arguments = ["run", try Self.dataset(), "--realtime", "--no-stream", "--quiet", "--trajectory", tum]
            let err = Pipe()
            process.standardError = err
            try process.run()
            // Realtime pacing: after 3.5 s the tracker has been normal for ~1.5 s; the file fills as it goes.
            Thread.sleep(forTimeInterval: 3.5)
            let during = try Self.tumRows(tum).count
            #expect(during >= 5, "poses are written while the run goes (found \(during))")
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationReason == .exit && process.terminationStatus == status, "\(stderr)")
            #expect(Self.lastLine(stderr).contains("interrupted by \(signal == SIGINT ? "SIGINT" : "SIGTERM")"), "\(stderr)")
            let rows = try Self.tumRows(tum)
            #expect(rows.count >= during && rows.count < 100)
        }
    }

    // MARK: Output paths checked before the first frame

    @Test("--trajectory into a missing folder, a folder, an unwritable place, or a used burst folder: exit 2 before any frame")
    func badOutputPaths() throws {
        let dir = try TemporaryDirectory()
        let data = try Self.dataset()
        let cases: [(args: [String], fragment: String)] = [
            (["--trajectory", dir.path("missing/est.tum")], "does not exist"),
            (["--trajectory", dir.path], "is a folder"),
            (["--trajectory", "/proc/self/est.tum"], "/proc/self"),
            (["--summary-json", dir.path], "is a folder"),
            (["--profile-frames", dir.path], "is a folder"),
        ]
        for c in cases {
            let run = try ProcessRunner.run(try Self.wt(), ["run", data] + c.args)
            #expect(run.status == 2, "\(c.args): \(run.stderr)")
            #expect(run.stderr.contains(c.args[1]) && run.stderr.contains(c.fragment), "\(c.args): \(run.stderr)")
            #expect(run.stdout.isEmpty && !run.stderr.contains("run: "), "no frame may run: \(run.stderr)")
        }
        // A burst folder used by a first run: the second run refuses it at once and creates no trajectory.
        let burst = dir.path("burst"), tum = dir.path("second.tum")
        let first = try ProcessRunner.run(try Self.wt(), ["run", data, "--quiet", "--seconds", "2", "--consumer", "burst:every=5,count=2,out=\(burst)"])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try ProcessRunner.run(try Self.wt(), ["run", data, "--quiet", "--trajectory", tum, "--consumer", "burst:every=5,count=2,out=\(burst)"])
        #expect(second.status == 2 && second.stderr.contains(burst) && second.stderr.contains("not empty"), "\(second.stderr)")
        #expect(second.stdout.isEmpty && !FileManager.default.fileExists(atPath: tum))
    }

    @Test("--profile-frames: a CSV line per frame after the warm-up, in time order, stages adding up to the total; an existing file is kept without --force")
    func profileFrames() throws {
        let dir = try TemporaryDirectory()
        let data = try Self.dataset()
        let csv = dir.path("frames.csv"), tum = dir.path("est.tum")
        let run = try ProcessRunner.run(try Self.wt(), ["run", data, "--quiet", "--no-stream", "--seconds", "3", "--profile-frames", csv,
                                                        "--trajectory", tum])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        let header = lines.first.map { $0.split(separator: ",").map(String.init) } ?? []
        #expect(header.first == "t_ns" && header.last == "total_ms" && header.contains("frontend_ms") && header.contains("update_ms"))
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        // 3 s at 20 Hz, less the profiler's warm-up frames.
        #expect(rows.count >= 40 && rows.count <= 61, "\(rows.count) rows")
        let times = rows.compactMap { Int64($0[0]) }
        #expect(times.count == rows.count && times == times.sorted() && Set(times).count == times.count)
        for row in rows {
            let values = row.dropFirst().map { Double($0) ?? -1 }
            #expect(values.allSatisfy { $0 >= 0 })
            // The tracking thread's stages add up to the total (planeWorker and initWorker, on their own threads, are
            // not in it).
            let offThread: Set = ["total_ms", "planeWorker_ms", "initWorker_ms"]
            let tracking = zip(header.dropFirst(), values).filter { !offThread.contains($0.0) }.map(\.1)
            #expect(abs(tracking.reduce(0, +) - values.last!) < 0.001 * Double(tracking.count) + 1e-9)
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: csv))
        let again = try ProcessRunner.run(try Self.wt(), ["run", data, "--quiet", "--no-stream", "--seconds", "1", "--profile-frames", csv])
        #expect(again.status == 2 && again.stderr.contains(csv), "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: csv)) == before)
    }

    @Test("--pipe false and --pipe nonexistent_cmd: the command and its status, or 'not found'; never a Foundation error")
    func pipeStartFailures() throws {
        let data = try Self.dataset()
        let dir = try TemporaryDirectory()
        let falseRun = try ProcessRunner.run(try Self.wt(), ["run", data, "--quiet", "--pipe", "false", "--trajectory", dir.path("a.tum")])
        #expect(falseRun.status == 1 && Self.lastLine(falseRun.stderr).contains("'false' exited with status 1"), "\(falseRun.stderr)")
        let missing = try ProcessRunner.run(try Self.wt(), ["run", data, "--quiet", "--pipe", "nonexistent_cmd_wt16", "--trajectory", dir.path("b.tum")])
        #expect(missing.status == 2 && Self.lastLine(missing.stderr).contains("command not found: 'nonexistent_cmd_wt16'"), "\(missing.stderr)")
        for r in [falseRun, missing] { #expect(!r.stderr.contains("Error Domain") && !r.stderr.contains("NSCocoaErrorDomain")) }
        #expect(try Self.tumRows(dir.path("a.tum")).isEmpty) // created before the first frame, header only
    }

    // MARK: eval edge cases

    static func writeTUM(_ path: String, _ rows: [(Double, Double, Double, Double)]) throws {
        let text = "# t x y z qx qy qz qw\n" + rows.map { String(format: "%.9f %.17g %.17g %.17g 0 0 0 1", $0.0, $0.1, $0.2, $0.3) }.joined(separator: "\n") + "\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test("eval with 1 or 2 poses: exit 2 with a message")
    func evalTooFewPoses() throws {
        let dir = try TemporaryDirectory()
        let gt = dir.path("gt.tum")
        try Self.writeTUM(gt, (0..<50).map { (Double($0) * 0.1, Double($0) * 0.1, 0, 0) })
        for n in [1, 2] {
            let est = dir.path("est\(n).tum")
            try Self.writeTUM(est, (0..<n).map { (Double($0) * 0.1, Double($0) * 0.1, 0, 0) })
            let run = try ProcessRunner.run(try Self.wt(), ["eval", "--estimate", est, "--groundtruth", gt, "--json"])
            #expect(run.status == 2 && run.stderr.contains("at least 3") && run.stdout.isEmpty, "\(run.stderr)")
        }
    }

    @Test("eval: a nearly still path and a straight line warn (text and JSON); RPE rows without pairs carry no figures")
    func evalDegenerateAlignment() throws {
        let dir = try TemporaryDirectory()
        let gt = dir.path("gt.tum"), still = dir.path("still.tum"), line = dir.path("line.tum")
        // 1.5 cm of wobble (like the EuRoC micro excerpt) and a 5 m straight line with 1 mm of noise.
        func wobble(_ k: Int) -> (Double, Double, Double, Double) {
            let x: Double = 0.007 * sin(Double(k) * 0.06), y: Double = 0.004 * cos(Double(k) * 0.05)
            return (Double(k) * 0.05, x, y, 0.001 * sin(Double(k) * 0.03))
        }
        func wobble2(_ k: Int) -> (Double, Double, Double, Double) {
            let x: Double = 0.004 * sin(Double(k) + 0.3), y: Double = 0.006 * cos(Double(k) * 0.7)
            return (Double(k) * 0.05, x, y, 0)
        }
        func straight(_ k: Int) -> (Double, Double, Double, Double) {
            let y: Double = 0.001 * sin(Double(k)), z: Double = 0.001 * cos(Double(k))
            return (Double(k) * 0.05, 0.05 * Double(k), y, z)
        }
        try Self.writeTUM(gt, (0..<100).map(wobble))
        try Self.writeTUM(still, (0..<100).map(wobble2))
        try Self.writeTUM(line, (0..<100).map(straight))
        let lineGT = dir.path("linegt.tum")
        try Self.writeTUM(lineGT, (0..<100).map { k in (Double(k) * 0.05, 0.05 * Double(k), 0, 0) })

        let short = try ProcessRunner.run(try Self.wt(), ["eval", "--estimate", still, "--groundtruth", gt, "--align", "se3", "--json"])
        #expect(short.status == 0, "\(short.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(short.stdout.utf8)) as? [String: Any]
        #expect((json?["warnings"] as? [String])?.contains { $0.contains("cm long") } == true, "\(short.stdout)")
        let text = try ProcessRunner.run(try Self.wt(), ["eval", "--estimate", still, "--groundtruth", gt, "--align", "sim3"])
        #expect(text.status == 0 && text.stdout.contains("warning: the ground-truth path is only"), "\(text.stdout)")

        let collinear = try ProcessRunner.run(try Self.wt(), ["eval", "--estimate", line, "--groundtruth", lineGT, "--align", "se3", "--json",
                                                              "--segments", "1,100m"])
        #expect(collinear.status == 0, "\(collinear.stderr)")
        let c = try JSONSerialization.jsonObject(with: Data(collinear.stdout.utf8)) as? [String: Any]
        #expect((c?["warnings"] as? [String])?.contains { $0.contains("collinear") } == true, "\(collinear.stdout)")
        let rpe = c?["rpe"] as? [[String: Any]] ?? []
        #expect(rpe.count == 2)
        #expect((rpe.first?["pairs"] as? Int ?? 0) > 0 && rpe.first?["trans_mean_m"] != nil)
        // 100 m on a 5 m path: no pairs, so no figures (never a 0 that reads as perfect).
        #expect((rpe.last?["pairs"] as? Int) == 0 && rpe.last?["trans_mean_m"] == nil && rpe.last?["rot_rmse_deg"] == nil)
        #expect((rpe.last?["note"] as? String)?.contains("no pose pair") == true)
        // posyaw is not hurt by a straight line: no collinearity warning.
        let posyaw = try ProcessRunner.run(try Self.wt(), ["eval", "--estimate", line, "--groundtruth", lineGT, "--json"])
        #expect(!posyaw.stdout.contains("collinear"))
    }

    @Test("eval on the nearly still EuRoC micro excerpt (1.4 cm of motion): SE(3) and Sim(3) figures come with a warning")
    func evalMicroExcerptWarns() throws {
        guard let micro = SharedDatasets.path("euroc-v101-micro") else { return }
        let dir = try TemporaryDirectory()
        let tum = dir.path("est.tum")
        let run = try ProcessRunner.run(try Self.wt(), ["run", micro, "--no-stream", "--quiet", "--trajectory", tum], timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        for align in ["se3", "sim3"] {
            let eval = try ProcessRunner.run(try Self.wt(), ["eval", "--estimate", tum, "--groundtruth", micro, "--align", align, "--json"])
            #expect(eval.status == 0, "\(eval.stderr)")
            let json = try JSONSerialization.jsonObject(with: Data(eval.stdout.utf8)) as? [String: Any]
            let warnings = json?["warnings"] as? [String] ?? []
            #expect(warnings.contains { $0.contains("cm long") }, "\(align): \(warnings)")
        }
    }

    @Test("eval --json with positions near 1e200: exit 2 with a message, never an EncodingError")
    func evalNonFinite() throws {
        let dir = try TemporaryDirectory()
        let gt = dir.path("gt.tum"), est = dir.path("est.tum")
        try Self.writeTUM(gt, (0..<20).map { (Double($0) * 0.1, Double($0) * 0.1, 1, 0) })
        try Self.writeTUM(est, (0..<20).map { (Double($0) * 0.1, Double($0) * 1e200, 1e200, 0) })
        for extra in [["--json"], []] {
            let run = try ProcessRunner.run(try Self.wt(), ["eval", "--estimate", est, "--groundtruth", gt, "--align", "none"] + extra)
            #expect(run.status == 2 && run.stderr.contains("not a finite number") && run.stdout.isEmpty, "\(run.stderr)")
            #expect(!run.stderr.contains("EncodingError"))
        }
    }

    @Test("eval reads the TUM file run writes for timestamps near the Int64 limit")
    func int64Timestamps() throws {
        let dir = try TemporaryDirectory()
        let data = try Self.copyOfDataset(in: dir)
        try LateClock.shift(dataset: data, lastTime_ns: .max - 1_000)
        let tum = dir.path("est.tum")
        let run = try ProcessRunner.run(try Self.wt(), ["run", data, "--no-stream", "--quiet", "--trajectory", tum], timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try Self.tumRows(tum)
        #expect(rows.last?.hasPrefix("92233720368.") == false && rows.last?.hasPrefix("9223372036.") == true, "\(rows.last ?? "")")
        let eval = try ProcessRunner.run(try Self.wt(), ["eval", "--estimate", tum, "--groundtruth", data, "--json"])
        #expect(eval.status == 0, "\(eval.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(eval.stdout.utf8)) as? [String: Any]
        #expect((json?["pairs"] as? Int) == rows.count)
        #expect(((json?["ate_rmse_m"] as? Double) ?? 1) < 0.05)
    }

    // MARK: Minor

    @Test("a garbage sensor.yaml's control bytes are escaped; burst:every=abc names the bad value")
    func minorMessages() throws {
        let dir = try TemporaryDirectory()
        let data = try Self.copyOfDataset(in: dir)
        let yaml = data + "/mav0/cam0/sensor.yaml"
        try Data("camera_model: pin\u{0}hole\u{1B}[31m\nintrinsics: [1, 2, 3, 4]\n".utf8).write(to: URL(fileURLWithPath: yaml))
        let info = try ProcessRunner.run(try Self.wt(), ["info", data])
        #expect(info.status == 2)
        #expect(!info.stderr.unicodeScalars.contains { $0.value == 0 || $0.value == 0x1B }, "\(info.stderr.debugDescription)")
        #expect(info.stderr.contains("sensor.yaml:1: not valid YAML") && info.stderr.contains("0x00"), "\(info.stderr)")
        // A control character inside a (valid, escaped) YAML string is quoted back escaped.
        try Data(#"camera_model: "pin\u0001hole\u001B[31m""#.utf8 + [10]).write(to: URL(fileURLWithPath: yaml))
        let quoted = try ProcessRunner.run(try Self.wt(), ["info", data])
        #expect(quoted.status == 2 && quoted.stderr.contains("'pin\\u{1}hole\\u{1B}[31m'"), "\(quoted.stderr.debugDescription)")
        #expect(!quoted.stderr.unicodeScalars.contains { $0.value == 1 || $0.value == 0x1B })

        let burst = try ProcessRunner.run(try Self.wt(), ["run", try Self.dataset(), "--consumer", "burst:every=abc"])
        #expect(burst.status == 2 && burst.stderr.contains("'abc'") && burst.stderr.contains("'every'") && !burst.stderr.contains("missing"), "\(burst.stderr)")
    }
}

/// Makes a corrupt PNG the way a failing disk or copy does: header and end intact, image data random.
enum CorruptPNG {
    /// `png` with its image data replaced by 2000 random bytes (a valid IDAT checksum); with `colourType`, its
    /// IHDR's colour type (and the IHDR checksum) set to that (2: RGB).
    static func randomImageData(from png: [UInt8], colourType: UInt8? = nil) -> [UInt8] {
        var rng = SplitMix64(seed: 16)
        let payload = (0..<2000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let body = Array("IDAT".utf8) + payload
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }
        func crc32(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for b in bytes { crc ^= UInt32(b); for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) } }
            return ~crc
        }
        var head = Array(png[0..<33])
        if let colourType {
            head[24] = 8 // bit depth
            head[25] = colourType
            head.replaceSubrange(29..<33, with: be32(crc32(Array(head[12..<29]))))
        }
        return head + be32(UInt32(payload.count)) + body + be32(crc32(body)) + Array(png.suffix(12))
    }
}

/// Moves a dataset's clock so that its last sample is at `lastTime_ns` (listing files and ground truth; file names stay).
enum LateClock {
    static func shift(dataset: String, lastTime_ns: Int64) throws {
        let files = ["mav0/cam0/data.csv", "mav0/imu0/data.csv", "mav0/state_groundtruth_estimate0/data.csv"].map { dataset + "/" + $0 }
        var last: Int64 = 0
        for f in files {
            for line in try String(contentsOfFile: f, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
                if let t = Int64(line.prefix { $0 != "," }) { last = max(last, t) }
            }
        }
        let offset = lastTime_ns - last
        for f in files {
            let shifted = try String(contentsOfFile: f, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                guard !line.hasPrefix("#"), let comma = line.firstIndex(of: ","), let t = Int64(line[..<comma]) else { return String(line) }
                return "\(t + offset)" + line[comma...]
            }
            try Data(shifted.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: f))
        }
    }
}
