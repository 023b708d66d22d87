import Foundation
import Testing
import TestSupport

/// `worldtrack bench-suite merge` end to end, on shard results that `bench-suite --shard` wrote. The entries' datasets
/// are absent, so every entry fails at once (no tracking): the shards are real results files in seconds.
@Suite("worldtrack bench-suite merge (end to end)")
struct BenchSuiteMergeTests {
    static func worldtrack(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(try ProcessRunner.product("worldtrack"), arguments, timeout: 120)
    }

    /// Writes a manifest of entries named `names`, each on an absent dataset.
    static func manifest(_ path: String, names: [String], dataset: String = "absent") throws {
        let entries = names.map { #"{"name": "\#($0)", "dataset": "\#(dataset)/\#($0)"}"# }.joined(separator: ", ")
        try Data(#"{"entries": [\#(entries)]}"#.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Runs shard `shard` of `manifest` into `out`; its entries fail (exit 1), its results file is written.
    static func shard(_ manifest: String, _ shard: String, out: String) throws {
        let r = try worldtrack(["bench-suite", manifest, "--shard", shard, "--out", out])
        #expect(r.status == 1, "\(r.stderr)")
    }

    static func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    @Test("shards of one manifest join into one results file in manifest order, failures listed, and a table")
    func mergesShards() throws {
        let dir = try TemporaryDirectory()
        let m = dir.path("suite.json")
        try Self.manifest(m, names: ["a", "b", "c"])
        // Two shards in one folder, one in another.
        try Self.shard(m, "0/3", out: dir.path("r"))
        try Self.shard(m, "2/3", out: dir.path("r"))
        try Self.shard(m, "1/3", out: dir.path("r1"))
        let out = dir.path("merged.json")
        let r = try Self.worldtrack(["bench-suite", "merge", dir.path("r"), dir.path("r1"), "--out", out])
        #expect(r.status == 0, "\(r.stderr)")
        let merged = try Self.json(out)
        let entries = try #require(merged["entries"] as? [[String: Any]])
        #expect(entries.map { $0["name"] as? String } == ["a", "b", "c"])
        let failed = try #require(merged["failed"] as? [[String: Any]])
        #expect(failed.map { $0["name"] as? String } == ["a", "b", "c"])
        #expect(failed.allSatisfy { ($0["error"] as? String)?.contains("exited with 2") == true })
        #expect(merged["mean_over"] as? Int == 0 && merged["mean_ate_rmse_m"] == nil)
        let info = try #require(merged["merged"] as? [String: Any])
        #expect(info["shards"] as? Int == 3 && (info["missing"] as? [Int]) == [] && (info["from"] as? [String])?.count == 3)
        // The table: next to the JSON and on stdout; the summary line on stderr names the failures.
        let table = try String(contentsOfFile: dir.path("merged.md"), encoding: .utf8)
        #expect(table == r.stdout)
        #expect(table.contains("| **mean of 0 of 3** |") && table.contains("Failed:\n- a: ") && table.contains("Joined from 3 files (shards of 3)."))
        #expect(r.stderr.contains("3 entries from 3 files") && r.stderr.contains("3 failed: a, b, c"))

        // An existing --out is refused, --force replaces it.
        let again = try Self.worldtrack(["bench-suite", "merge", dir.path("r"), dir.path("r1"), "--out", out])
        #expect(again.status == 2 && again.stderr.contains("exists; pass --force"), "\(again.stderr)")
        let forced = try Self.worldtrack(["bench-suite", "merge", dir.path("r"), dir.path("r1"), "--out", out, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
    }

    @Test("a missing shard is refused unless --partial; a shard twice, another manifest, other shard counts are refused")
    func refusesWhatDoesNotBelongTogether() throws {
        let dir = try TemporaryDirectory()
        let m = dir.path("suite.json")
        try Self.manifest(m, names: ["a", "b", "c", "d"])
        try Self.shard(m, "0/2", out: dir.path("s0"))
        try Self.shard(m, "1/2", out: dir.path("s1"))
        func merge(_ args: String...) throws -> ProcessRunner.Result {
            try Self.worldtrack(["bench-suite", "merge"] + args)
        }

        let missing = try merge(dir.path("s0"), "--out", dir.path("m1.json"))
        #expect(missing.status == 2 && missing.stderr.contains("shard 1 of 2 missing (given: 0)"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("m1.json")))
        let partial = try merge(dir.path("s0"), "--out", dir.path("m1.json"), "--partial")
        #expect(partial.status == 0, "\(partial.stderr)")
        let p = try Self.json(dir.path("m1.json"))
        #expect((p["entries"] as? [[String: Any]])?.map { $0["name"] as? String } == ["a", "c"])
        #expect((p["merged"] as? [String: Any])?["missing"] as? [Int] == [1])
        #expect(partial.stdout.contains("**partial**: shard 1 missing"))

        let twice = try merge(dir.path("s0"), dir.path("s0/results-shard-0-of-2.json"), dir.path("s1"), "--out", dir.path("m2.json"))
        #expect(twice.status == 2 && twice.stderr.contains("shard 0/2 twice"), "\(twice.stderr)")

        // The same names in another manifest file (other datasets): refused by the file's hash.
        let other = dir.path("other.json")
        try Self.manifest(other, names: ["a", "b", "c", "d"], dataset: "elsewhere")
        try Self.shard(other, "1/2", out: dir.path("o1"))
        let mixed = try merge(dir.path("s0"), dir.path("o1"), "--out", dir.path("m3.json"))
        #expect(mixed.status == 2 && mixed.stderr.contains("different manifest files"), "\(mixed.stderr)")
        // Other entries.
        let fewer = dir.path("fewer.json")
        try Self.manifest(fewer, names: ["a", "b", "c"])
        try Self.shard(fewer, "1/2", out: dir.path("f1"))
        let differs = try merge(dir.path("s0"), dir.path("f1"), "--out", dir.path("m4.json"))
        #expect(differs.status == 2 && differs.stderr.contains("different manifests: entries [a, b, c] vs [a, b, c, d]"), "\(differs.stderr)")
        // Other shard counts of the same manifest.
        try Self.shard(m, "1/3", out: dir.path("t1"))
        let counts = try merge(dir.path("s0"), dir.path("t1"), "--out", dir.path("m5.json"))
        #expect(counts.status == 2 && counts.stderr.contains("different shard counts"), "\(counts.stderr)")
        // A folder without results, and no such folder.
        let empty = try merge(dir.path("f1"), dir.path("nothing"), "--out", dir.path("m6.json"))
        #expect(empty.status == 2 && empty.stderr.contains("nothing: no such folder or file"), "\(empty.stderr)")
        try FileManager.default.createDirectory(atPath: dir.path("bare"), withIntermediateDirectories: true)
        let bare = try merge(dir.path("bare"), "--out", dir.path("m7.json"))
        #expect(bare.status == 2 && bare.stderr.contains("no bench-suite results file"), "\(bare.stderr)")
        for name in ["m2", "m3", "m4", "m5", "m6", "m7"] { #expect(!FileManager.default.fileExists(atPath: dir.path(name + ".json"))) }
    }

    @Test("shards run with other settings (--config) are refused; shards run with the same keep them in the merged results")
    func refusesOtherSettings() throws {
        let dir = try TemporaryDirectory()
        let m = dir.path("suite.json")
        try Self.manifest(m, names: ["a", "b"])
        let settings = dir.path("few.yaml")
        try Data("frontend:\n  featureBudget: 60\n".utf8).write(to: URL(fileURLWithPath: settings))
        for (shard, out, config) in [("0/2", "plain", false), ("1/2", "plain", false), ("0/2", "set", true), ("1/2", "set", true), ("1/2", "mixed", true)] {
            let r = try Self.worldtrack(["bench-suite", m, "--shard", shard, "--out", dir.path(out)] + (config ? ["--config", settings] : []))
            #expect(r.status == 1, "\(r.stderr)")
        }
        let mixed = try Self.worldtrack(["bench-suite", "merge", dir.path("plain/results-shard-0-of-2.json"), dir.path("mixed"),
                                         "--out", dir.path("mixed.json")])
        #expect(mixed.status == 2 && mixed.stderr.contains("different settings (--config): the defaults, \(settings)"), "\(mixed.stderr)")
        let same = try Self.worldtrack(["bench-suite", "merge", dir.path("set"), "--out", dir.path("set.json")])
        #expect(same.status == 0, "\(same.stderr)")
        #expect(try Self.json(dir.path("set.json"))["config"] as? String == settings)
        #expect(try Self.json(dir.path("plain/results-shard-0-of-2.json"))["config"] == nil)
    }

}
