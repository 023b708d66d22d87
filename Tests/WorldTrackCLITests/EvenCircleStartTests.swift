import Foundation
import Simulation
import Testing
import TestSupport

/// `worldtrack run` started in motion on an even circle facing its centre (the simulator's `orbit`, moving from the
/// first frame): mono does not start, says why on stderr and in `--summary-json`; stereo starts.
@Suite("worldtrack run: a start in motion on an even circle")
struct EvenCircleStartTests {
    /// 4 s of the orbit at 376×240, moving from t = 0.
    static func dataset(stereo: Bool) throws -> String {
        try SimSequenceCache.dataset("cli-orbit-moving-4s-376x240\(stereo ? "-stereo" : "")") {
            var config = SimDatasets.smallConfig(trajectory: "orbit", seconds: 4, seed: 2, stereo: stereo, width: 376, height: 240)
            config.trajectoryOptions.startMoving = true
            return config
        }
    }

    @Test("mono: no frame is normal, a warning when it first happens and the end line say why, the summary counts the refusals")
    func monoRefusesAndSaysWhy() throws {
        let summary = FileManager.default.temporaryDirectory.appendingPathComponent("wt-even-circle-\(getpid()).json").path
        let run = try RunCommandTests.worldtrack(["run", try Self.dataset(stereo: false), "--quiet", "--summary-json", summary, "--force"])
        #expect(run.status == 0, "\(run.stderr)")
        let states = run.stdout.split(separator: "\n").compactMap { line -> String? in
            guard let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], record["type"] as? String == "frame"
            else { return nil }
            return record["tracking_state"] as? String
        }
        #expect(states.count == 81 && !states.contains("normal"), "\(Set(states))")
        #expect(run.stderr.contains("to start in motion: the images did not fix the speed"), "\(run.stderr)")
        // Said once when it first happens, as a warning (printed with --quiet too), for a live consumer of the stream.
        let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") && $0.contains("cannot start in motion yet") }
        #expect(warnings.count == 1, "\(run.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as? [String: Any]
        let refused = try #require(json?["refused_start_windows"] as? Int)
        // One try per 0.5 s after a refusal, from the first full window (1.35 s) to 4 s.
        #expect(refused >= 3 && refused <= 6, "\(refused)")
    }

    @Test("stereo: the same motion starts (the baseline fixes the scale), and nothing is refused")
    func stereoStarts() throws {
        let summary = FileManager.default.temporaryDirectory.appendingPathComponent("wt-even-circle-st-\(getpid()).json").path
        let run = try RunCommandTests.worldtrack(["run", try Self.dataset(stereo: true), "--stereo", "--quiet", "--no-stream",
                                                  "--summary-json", summary, "--force"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("run: normal tracking after"), "\(run.stderr)")
        #expect(!run.stderr.contains("to start in motion") && !run.stderr.contains("cannot start in motion"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as? [String: Any]
        #expect(json?["refused_start_windows"] == nil)
    }
}
