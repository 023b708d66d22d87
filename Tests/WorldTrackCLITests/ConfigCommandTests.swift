import Foundation
import Testing
import TestSupport

/// `worldtrack config` and `run --config`, end to end.
@Suite("worldtrack config and run --config (end to end)")
struct ConfigCommandTests {
    static func temporaryFile(_ name: String, _ text: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wt-config-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("config --defaults prints a file that --check accepts as all defaults and that run accepts unchanged")
    func defaultsFileIsAccepted() throws {
        let defaults = try RunCommandTests.worldtrack(["config", "--defaults"])
        #expect(defaults.status == 0)
        #expect(defaults.stdout.contains("estimator:\n") && defaults.stdout.contains("    pixelNoiseStd: 1.0\n"))
        let path = try Self.temporaryFile("defaults.yaml", defaults.stdout)
        let check = try RunCommandTests.worldtrack(["config", "--check", path])
        #expect(check.status == 0 && check.stdout.contains("every setting at its default"), "\(check.stdout)\(check.stderr)")
        // The defaults file changes nothing: the same stream as without it.
        let dataset = try RunCommandTests.dataset()
        let plain = try RunCommandTests.worldtrack(["run", dataset, "--quiet", "--seconds", "3"])
        let configured = try RunCommandTests.worldtrack(["run", dataset, "--quiet", "--seconds", "3", "--config", path])
        #expect(plain.status == 0 && configured.status == 0, "\(configured.stderr)")
        #expect(plain.stdout == configured.stdout && !plain.stdout.isEmpty)
    }

    @Test("run --config: a changed setting changes the run and is in the summary; a bad file is exit 2 with its line")
    func changedAndBadFiles() throws {
        let dataset = try RunCommandTests.dataset()
        let changed = try Self.temporaryFile("changed.yaml", "frontend:\n  featureBudget: 60\n")
        let summary = FileManager.default.temporaryDirectory.appendingPathComponent("wt-config-summary-\(getpid()).json").path
        let run = try RunCommandTests.worldtrack(["run", dataset, "--quiet", "--seconds", "3", "--config", changed, "--summary-json", summary, "--force"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as? [String: Any]
        let configuration = try #require(json?["configuration"] as? [String: String])
        #expect(configuration["frontend.featureBudget"] == "60" && configuration["estimator.updater.pixelNoiseStd"] == "1.0")
        // At most 60 features per frame now (the default budget is 200).
        let counts = run.stdout.split(separator: "\n").compactMap { line -> Int? in
            guard let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], record["type"] as? String == "frame" else { return nil }
            return record["features"] as? Int
        }
        #expect(!counts.isEmpty && counts.allSatisfy { $0 <= 60 })

        let bad = try Self.temporaryFile("bad.yaml", "estimator:\n  updater:\n    pixelNoiseStd: -1\n")
        let refused = try RunCommandTests.worldtrack(["run", dataset, "--quiet", "--config", bad])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("bad.yaml:3: estimator.updater.pixelNoiseStd: must be between"), "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)   // refused before the first frame
        let missing = try RunCommandTests.worldtrack(["run", dataset, "--quiet", "--config", "/nonexistent/cfg.yaml"])
        #expect(missing.status == 2 && missing.stderr.contains("/nonexistent/cfg.yaml"))
    }

    @Test("features --config: the file's frontend settings apply, --budget overrides them, a bad file is exit 2")
    func featuresTakeTheFrontendSettings() throws {
        let dataset = try RunCommandTests.dataset()
        let changed = try Self.temporaryFile("features.yaml", "frontend:\n  featureBudget: 60\n")
        func featuresPerFrame(_ extra: [String]) throws -> (mean: Double, min: Double) {
            let r = try RunCommandTests.worldtrack(["features", dataset, "--json", "--seconds", "2"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            return (try #require(json["features_per_frame_mean"] as? Double), try #require((json["features_per_frame_min"] as? NSNumber)?.doubleValue))
        }
        let plain = try featuresPerFrame([]), configured = try featuresPerFrame(["--config", changed])
        let overridden = try featuresPerFrame(["--config", changed, "--budget", "100"])
        // The room fills the default budget of 200; the file's 60 caps it, and --budget 100 lifts that cap again.
        #expect(plain.mean > 150 && configured.mean <= 60 && configured.mean > 40, "\(plain) \(configured)")
        #expect(overridden.mean <= 100 && overridden.mean > 60, "\(overridden)")
        let bad = try Self.temporaryFile("bad-frontend.yaml", "frontend:\n  featureBudget: 0\n")
        let refused = try RunCommandTests.worldtrack(["features", dataset, "--config", bad])
        #expect(refused.status == 2 && refused.stderr.contains("bad-frontend.yaml"), "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
    }

    @Test("features --json: why tracks ended, summed over the run; the appearance check's count follows its setting")
    func featuresCountTrackEndings() throws {
        let dataset = try RunCommandTests.dataset()
        let off = try Self.temporaryFile("appearance-off.yaml", "frontend:\n  appearanceMinCorrelation: null\n")
        func counts(_ extra: [String]) throws -> [String: Int] {
            let r = try RunCommandTests.worldtrack(["features", dataset, "--json", "--seconds", "4"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            var out: [String: Int] = [:]
            for key in ["tracks", "tracks_detected", "ended_lost", "ended_by_forward_backward", "ended_by_ransac",
                        "ended_by_long_baseline", "ended_by_appearance", "ended_on_still_frame", "ended_retired", "ended_pruned"] {
                out[key] = try #require((json[key] as? NSNumber)?.intValue, "\(key) missing: \(r.stdout)")
            }
            return out
        }
        let on = try counts([]), without = try counts(["--config", off])
        // The handheld walk ends tracks by appearance, by loss and by RANSAC; the long-baseline rejections are part of RANSAC's.
        #expect(on["ended_by_appearance"]! > 0 && without["ended_by_appearance"] == 0, "\(on) \(without)")
        #expect(on["ended_lost"]! > 0 && on["ended_by_ransac"]! > 0 && on["ended_by_ransac"]! >= on["ended_by_long_baseline"]!, "\(on)")
        // Every track the summary saw was detected in the run (the first frame's included).
        #expect(on["tracks_detected"]! >= on["tracks"]! && on["tracks"]! > 200, "\(on)")
    }
}
