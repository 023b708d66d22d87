import Foundation
import Testing
import TestSupport

/// End-to-end tests of `worldtrack info`: the built binary runs as a subprocess.
@Suite("worldtrack info (end to end)")
struct InfoCommandTests {
    func worldtrack(_ arguments: String...) throws -> ProcessRunner.Result {
        try ProcessRunner.run(try ProcessRunner.product("worldtrack"), arguments)
    }

    func jsonObject(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(object as? [String: Any], "stdout is not one JSON object: \(text)")
    }

    @Test("Each bad input: fatal ones exit 2 naming file and line on stderr; warnings exit 0 and are listed",
          arguments: DatasetBreakage.all)
    func badInput(_ c: DatasetBreakage) throws {
        let f = try DatasetFixture(frames: DatasetBreakage.fixtureFrames)
        try c.apply(f)
        let r = try worldtrack("info", f.root)
        let location = f.path(c.file) + (c.line.map { ":\($0)" } ?? "") + ":"
        if c.fatal {
            #expect(r.status == 2, "stderr: \(r.stderr)")
            #expect(r.stderr.hasPrefix("worldtrack: error: "), "\(r.stderr)")
            #expect(r.stderr.contains(location + " "), "\(r.stderr)")
            #expect(r.stderr.contains(c.message), "\(r.stderr)")
            #expect(r.stdout.isEmpty)
        } else {
            #expect(r.status == 0, "stderr: \(r.stderr)")
            #expect(r.stdout.contains("warning: " + location), "\(r.stdout)")
            #expect(r.stdout.contains(c.message))
            let json = try jsonObject(try worldtrack("info", f.root, "--json").stdout)
            let problems = try #require(json["problems"] as? [[String: Any]])
            #expect(problems.contains { ($0["message"] as? String)?.contains(c.message) == true
                && $0["file"] as? String == f.path(c.file) && $0["severity"] as? String == "warning" })
        }
    }

    @Test("A dataset folder that does not exist exits 2 and names it")
    func missingFolder() throws {
        let dir = try TemporaryDirectory()
        let r = try worldtrack("info", dir.path("absent"), "--json")
        #expect(r.status == 2)
        #expect(r.stderr == "worldtrack: error: \(dir.path("absent")): no such dataset folder\n")
        #expect(r.stdout.isEmpty)
    }

    @Test("info on a valid fixture: aligned text and a JSON object with the counts")
    func fixture() throws {
        let f = try DatasetFixture(frames: 7)
        let text = try worldtrack("info", f.root)
        #expect(text.status == 0)
        #expect(text.stdout.contains("Problems  none"))
        // The camera table's columns line up: "frames" in the header sits above the counts.
        let lines = text.stdout.components(separatedBy: "\n")
        let header = try #require(lines.first { $0.contains("distortion") && $0.contains("frames") })
        let cam0 = try #require(lines.first { $0.hasPrefix("  cam0 ") })
        let column = try #require(header.range(of: "frames")).lowerBound.utf16Offset(in: header)
        #expect(Array(cam0.utf16)[column..<(column + 2)].elementsEqual("7 ".utf16))

        let r = try worldtrack("info", f.root, "--json")
        #expect(r.status == 0)
        let json = try jsonObject(r.stdout)
        let cameras = try #require(json["cameras"] as? [[String: Any]])
        #expect(cameras.map { $0["frames"] as? Int } == [7, 7])
        #expect(cameras.map { $0["missing_images"] as? Int } == [0, 0])
        #expect(cameras.map { $0["name"] as? String } == ["cam0", "cam1"])
        let imu = try #require(json["imu"] as? [String: Any])
        #expect(imu["rate_hz"] as? Double == 200)
        #expect(imu["samples"] as? Int == f.imuCount)
        // 6 frame periods plus one IMU period either side: 0.31 s exactly.
        #expect(imu["duration_s"] as? Double == 0.31)
        let gt = try #require(json["groundtruth"] as? [String: Any])
        #expect(gt["present"] as? Bool == true)
        #expect(gt["rows"] as? Int == 7)
        #expect((json["problems"] as? [Any])?.isEmpty == true)
        // Keys are sorted: "cameras" comes before "dataset", "groundtruth", "imu", "problems".
        let order = ["\"cameras\"", "\"dataset\"", "\"groundtruth\"", "\"imu\"", "\"problems\""]
            .compactMap { r.stdout.range(of: $0)?.lowerBound }
        #expect(order.count == 5 && order == order.sorted())
    }

    @Test("No ground truth: present false; --skip-image-check does not open the images")
    func noGroundTruthAndSkip() throws {
        let f = try DatasetFixture(frames: 4, groundTruth: false)
        let json = try jsonObject(try worldtrack("info", f.root, "--json").stdout)
        let gt = try #require(json["groundtruth"] as? [String: Any])
        #expect(gt["present"] as? Bool == false)
        #expect(gt["rows"] as? Int == 0)
        #expect(try worldtrack("info", f.root).stdout.contains("Ground truth\n  none"))
        try f.write("mav0/cam0/data/\(f.frameFileName(1))", "not a png")
        #expect(try worldtrack("info", f.root).status == 2)
        #expect(try worldtrack("info", f.root, "--skip-image-check").status == 0)
    }

    @Test("info --json on the real euroc-v101-micro: 95 frames per camera, 4 absent in cam1, IMU 200 Hz over 145.6 s", .enabled(if: SharedDatasets.eurocMicroIsPresent, "needs ../shared/datasets/euroc-v101-micro"))
    func realEuroc() throws {
        let root = try SharedDatasets.eurocMicro()
        let r = try worldtrack("info", root, "--json")
        #expect(r.status == 0, "\(r.stderr)")
        let json = try jsonObject(r.stdout)
        let cameras = try #require(json["cameras"] as? [[String: Any]])
        #expect(cameras.map { $0["frames"] as? Int } == [95, 95])
        #expect(cameras.map { $0["missing_images"] as? Int } == [0, 4])
        let imu = try #require(json["imu"] as? [String: Any])
        // Median period 4 999 936 ns: 200.003 Hz; 0.01 Hz allows the sensor clock's quantisation.
        #expect(abs((imu["rate_hz"] as? Double ?? 0) - 200) < 0.01)
        // 29 119 periods ≈ 145.595 s; the dataset notes say 145.6 s.
        #expect(abs((imu["duration_s"] as? Double ?? 0) - 145.6) < 0.01)
        let gt = try #require(json["groundtruth"] as? [String: Any])
        #expect(gt["present"] as? Bool == true)
        let problems = try #require(json["problems"] as? [[String: Any]])
        #expect(problems.count == 1)
        #expect((problems.first?["file"] as? String)?.hasSuffix("mav0/cam1/data.csv") == true)
    }

    @Test("--help shows examples; a missing argument is a usage error, not a crash")
    func help() throws {
        let r = try worldtrack("info", "--help")
        #expect(r.status == 0)
        #expect(r.stdout.contains("Examples:"))
        #expect(r.stdout.contains("worldtrack info ../shared/datasets/euroc-v101-micro --json"))
        #expect(r.stdout.contains("--json"))
        let usage = try worldtrack("info")
        #expect(usage.status == 64) // ArgumentParser's EX_USAGE
        #expect(usage.stderr.contains("Missing expected argument"))
    }
}
