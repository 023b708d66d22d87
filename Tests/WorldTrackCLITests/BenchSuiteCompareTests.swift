import Foundation
import Testing
import TestSupport

/// `worldtrack bench-suite run --config` and `--datasets`, and `bench-suite compare`, end to end: a setting judged over a
/// suite's entries instead of one run.
@Suite("worldtrack bench-suite --config and compare (end to end)")
struct BenchSuiteCompareTests {
    static func worldtrack(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(try ProcessRunner.product("worldtrack"), arguments, timeout: 300)
    }

    /// A results file as `bench-suite run` writes it: entries `(name, stereo, ATE m or nil = failed, tilt vs gravity °)`.
    static func results(_ path: String, _ entries: [(String, Bool, Double?, Double?)]) throws {
        let items = entries.map { name, stereo, ate, tilt -> [String: Any] in
            var e: [String: Any] = ["name": name, "dataset": "/d", "stereo": stereo, "alignment": "posyaw"]
            if let ate { e["ate_rmse_m"] = ate } else { e["error"] = "exited with 2" }
            if let tilt { e["tilt_vs_gravity_median_deg"] = tilt }
            return e
        }
        let report: [String: Any] = ["entries": items, "mean_over": entries.filter { $0.2 != nil }.count, "failed": [], "skipped": []]
        try JSONSerialization.data(withJSONObject: report).write(to: URL(fileURLWithPath: path))
    }

    @Test("compare: entries paired by name; per mode and together the mean and median ATE and NEW's wins; entries left out say why; nothing in common exits 2")
    func compare() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.path("base"), withIntermediateDirectories: true)
        try Self.results(dir.path("base/results.json"), [("m1", false, 0.010, 0.2), ("m2", false, 0.020, nil), ("m3", false, 0.030, nil),
                                                         ("s1", true, 0.008, nil), ("f", false, nil, nil), ("only-base", false, 0.010, nil)])
        try Self.results(dir.path("new.json"), [("m1", false, 0.012, 0.1), ("m2", false, 0.015, nil), ("m3", false, 0.024, nil),
                                                ("s1", true, 0.005, nil), ("f", false, 0.010, nil), ("only-new", false, 0.020, nil)])
        // BASE given as its folder (results.json inside), NEW as the file.
        let r = try Self.worldtrack(["bench-suite", "compare", dir.path("base"), dir.path("new.json")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("| m1 | mono | 10.0 | 12.0 | +2.0 | 0.200 | 0.100 |"), "\(r.stdout)")
        #expect(r.stdout.contains("| s1 | stereo | 8.0 | 5.0 | -3.0 | — | — |"))
        // mono: (10 + 20 + 30) / 3 → (12 + 15 + 24) / 3; medians 20 → 15; NEW lower on m2 and m3; the tilt where both have it.
        #expect(r.stdout.contains("| mono | 3 | 20.0 → 17.0 | 20.0 → 15.0 | 2 of 3 | 0.200 → 0.100 |"))
        #expect(r.stdout.contains("| stereo | 1 | 8.0 → 5.0 | 8.0 → 5.0 | 1 of 1 | — → — |"))
        #expect(r.stdout.contains("| all | 4 | 17.0 → 14.0 | 15.0 → 13.5 | 3 of 4 | 0.200 → 0.100 |"))
        #expect(r.stdout.contains("- f: failed in \(dir.path("base"))"))
        #expect(r.stdout.contains("- only-base: not in \(dir.path("new.json"))"))
        #expect(r.stdout.contains("- only-new: not in \(dir.path("base"))"))

        try Self.results(dir.path("other.json"), [("x", false, 0.01, nil)])
        let none = try Self.worldtrack(["bench-suite", "compare", dir.path("base"), dir.path("other.json")])
        #expect(none.status == 2 && none.stderr.contains("no entry that succeeded in both"), "\(none.stderr)")
        let notResults = try Self.worldtrack(["bench-suite", "compare", dir.path("base"), dir.path("absent.json")])
        #expect(notResults.status == 2 && notResults.stderr.contains("absent.json"), "\(notResults.stderr)")
    }

    @Test("run --config: every run reads the settings and the results name them; a bad settings file exits 2 before anything is written")
    func config() throws {
        let path = try RunCommandTests.dataset()
        let dir = try TemporaryDirectory()
        let manifest = dir.path("suite.json")
        try Data(#"{"entries": [{"name": "a", "dataset": "\#(path)", "seconds": 4}]}"#.utf8).write(to: URL(fileURLWithPath: manifest))
        let settings = dir.path("few.yaml")
        try Data("frontend:\n  featureBudget: 60\n".utf8).write(to: URL(fileURLWithPath: settings))
        let base = try Self.worldtrack(["bench-suite", manifest, "--out", dir.path("base")])
        #expect(base.status == 0, "\(base.stderr)")
        let new = try Self.worldtrack(["bench-suite", manifest, "--config", settings, "--out", dir.path("new")])
        #expect(new.status == 0, "\(new.stderr)")
        let results = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.path("new/results.json")))) as? [String: Any])
        #expect(results["config"] as? String == settings)
        #expect(new.stdout.contains("Settings: every run read \(settings)"))
        let baseResults = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.path("base/results.json")))) as? [String: Any])
        #expect(baseResults["config"] == nil)
        // The run read them: its summary lists the setting, and tracking 60 features instead of 200 gives another trajectory.
        func budget(_ run: String) throws -> String? {
            let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.path("\(run)/runs/a/run.json")))) as? [String: Any]
            return (summary?["configuration"] as? [String: Any])?["frontend.featureBudget"] as? String
        }
        #expect(try budget("new") == "60" && budget("base") == "200")
        let tumBase = try String(contentsOfFile: dir.path("base/runs/a/trajectory.tum"), encoding: .utf8)
        let tumNew = try String(contentsOfFile: dir.path("new/runs/a/trajectory.tum"), encoding: .utf8)
        #expect(!tumNew.isEmpty && tumNew != tumBase)
        let compared = try Self.worldtrack(["bench-suite", "compare", dir.path("base"), dir.path("new")])
        #expect(compared.status == 0 && compared.stdout.contains("NEW: \(dir.path("new")) (\(settings))"), "\(compared.stdout)")

        let bad = dir.path("bad.yaml")
        try Data("frontend:\n  nonsense: 1\n".utf8).write(to: URL(fileURLWithPath: bad))
        let refused = try Self.worldtrack(["bench-suite", manifest, "--config", bad, "--out", dir.path("bad-out")])
        #expect(refused.status == 2 && refused.stderr.contains("unknown setting frontend.nonsense"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("bad-out")))
    }

    @Test("run --datasets: several runs of a suite render each simulation once; a folder holding another simulation under an entry's name fails that entry")
    func sharedDatasets() throws {
        let dir = try TemporaryDirectory()
        func manifest(seed: Int) throws -> String {
            let path = dir.path("suite-\(seed).json")
            try Data(#"{"entries": [{"name": "s", "seconds": 2, "simulate": ["--scene", "room", "--seconds", "3", "--size", "188x120", "--seed", "\#(seed)"]}]}"#.utf8)
                .write(to: URL(fileURLWithPath: path))
            return path
        }
        let first = try Self.worldtrack(["bench-suite", manifest(seed: 3), "--datasets", dir.path("data"), "--out", dir.path("o1")])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.path("data/s/mav0/cam0/data.csv")))
        #expect(FileManager.default.fileExists(atPath: dir.path("o1/runs/s/simulate.log")))
        #expect(!FileManager.default.fileExists(atPath: dir.path("o1/datasets")))
        // The second run of the same suite reuses it: no simulation.
        let second = try Self.worldtrack(["bench-suite", manifest(seed: 3), "--datasets", dir.path("data"), "--out", dir.path("o2")])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("o2/runs/s/simulate.log")))
        let tum1 = try String(contentsOfFile: dir.path("o1/runs/s/trajectory.tum"), encoding: .utf8)
        let tum2 = try String(contentsOfFile: dir.path("o2/runs/s/trajectory.tum"), encoding: .utf8)
        #expect(!tum1.isEmpty && tum1 == tum2)
        // Another simulation under the same entry name is not taken for it.
        let other = try Self.worldtrack(["bench-suite", manifest(seed: 4), "--datasets", dir.path("data"), "--out", dir.path("o3")])
        #expect(other.status == 1 && other.stdout.contains("holds another simulation"), "\(other.stdout)")
    }

}
