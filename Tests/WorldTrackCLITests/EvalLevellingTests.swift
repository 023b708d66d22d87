import Foundation
import Geometry
import Sensors
import Testing
import TestSupport

/// `worldtrack eval` on a ground truth whose world is not level (docs/ACCURACY.md, error budget: EuRoC V1_01's
/// motion-capture frame is 0.24° off gravity): the tilt is measured from the dataset's IMU, warned about under
/// posyaw, and removed by `--level-groundtruth`.
@Suite("worldtrack eval --level-groundtruth (end to end)")
struct EvalLevellingTests {
    static func wt() throws -> String { try ProcessRunner.product("worldtrack") }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("a dataset whose ground truth is tilted 0.5°: warned, and levelled back to the level truth's ATE (under 1 mm)")
    func tiltedGroundTruth() throws {
        let dir = try TemporaryDirectory()
        let level = try RunCommandTests.dataset()
        let tilted = dir.path("tilted")
        try FileManager.default.copyItem(atPath: level, toPath: tilted)
        let gtFile = "/mav0/state_groundtruth_estimate0/data.csv"
        // The same flight in a world turned 0.5° about a horizontal axis: the images and the IMU are unchanged, so
        // only the ground truth's frame is off gravity, as a hand-levelled motion-capture frame is.
        let R = SO3(angle: 0.5 * .pi / 180, axis: Vec3(0.6, 0.8, 0))
        let states = try TrajectoryFile.readASLGroundTruth(path: level + gtFile).map { s -> GroundTruthState in
            var t = s
            t.T_W_B = SE3(rotation: R * s.T_W_B.rotation, translation: R.act(s.T_W_B.translation))
            t.v_W = R.act(s.v_W)
            return t
        }
        try FileManager.default.removeItem(atPath: tilted + gtFile)
        try TrajectoryFile.writeASLGroundTruth(states, to: tilted + gtFile)
        let estimate = level + gtFile   // the level truth itself, as a perfect gravity-aligned estimate

        let plain = try ProcessRunner.run(try Self.wt(), ["eval", "--estimate", estimate, "--groundtruth", tilted, "--json"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let p = try Self.json(plain.stdout)
        #expect((p["warnings"] as? [String])?.contains { $0.contains("from gravity") && $0.contains("--level-groundtruth") } == true,
                "\(plain.stdout)")
        #expect(p["groundtruth_levelled_deg"] == nil)
        let plainATE = try #require(p["ate_rmse_m"] as? Double)

        let levelled = try ProcessRunner.run(try Self.wt(), ["eval", "--estimate", estimate, "--groundtruth", tilted, "--json",
                                                             "--level-groundtruth"])
        #expect(levelled.status == 0, "\(levelled.stderr)")
        let l = try Self.json(levelled.stdout)
        let deg = try #require(l["groundtruth_levelled_deg"] as? Double)
        let levelledATE = try #require(l["ate_rmse_m"] as? Double)
        print("tilted ground truth: measured \(deg)°; ATE posyaw \(plainATE) m as given, \(levelledATE) m levelled")
        #expect(abs(deg - 0.5) < 0.05)
        #expect(levelledATE < 0.001)
        #expect(plainATE > 3 * levelledATE)
        #expect((l["warnings"] as? [String])?.contains { $0.contains("from gravity") } != true)
        // The tilt error: the frame's 0.5° on every pose as given; what the levelling leaves, levelled.
        let plainTilt = try #require(p["tilt_median_deg"] as? Double), levelledTilt = try #require(l["tilt_median_deg"] as? Double)
        #expect(abs(plainTilt - 0.5) < 1e-6, "\(plainTilt)")
        #expect(levelledTilt < 0.05, "\(levelledTilt), levelled by \(deg)°")

        // The level dataset itself: nothing to warn about, and levelling moves it by less than 0.05°.
        let control = try ProcessRunner.run(try Self.wt(), ["eval", "--estimate", estimate, "--groundtruth", level, "--json",
                                                            "--level-groundtruth"])
        #expect(control.status == 0, "\(control.stderr)")
        #expect(try #require(Self.json(control.stdout)["groundtruth_levelled_deg"] as? Double) < 0.05)
        let unwarned = try ProcessRunner.run(try Self.wt(), ["eval", "--estimate", estimate, "--groundtruth", level])
        #expect(unwarned.status == 0 && !unwarned.stderr.contains("from gravity"), "\(unwarned.stderr)")
    }

    @Test("--level-groundtruth with a ground-truth file (no IMU to measure gravity with): exit 2, saying why")
    func needsDatasetFolder() throws {
        let gt = try RunCommandTests.dataset() + "/mav0/state_groundtruth_estimate0/data.csv"
        let run = try ProcessRunner.run(try Self.wt(), ["eval", "--estimate", gt, "--groundtruth", gt, "--level-groundtruth"])
        #expect(run.status == 2 && run.stderr.contains("dataset folder") && run.stdout.isEmpty, "\(run.stderr)")
    }
}
