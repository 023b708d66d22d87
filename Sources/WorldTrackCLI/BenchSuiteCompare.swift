import ArgumentParser
import Evaluation
import Foundation

/// `worldtrack bench-suite compare BASE NEW`: two results of one suite side by side, entry by entry, with the means
/// and how many entries each side wins: how a setting (`bench-suite run --config`) is judged over many draws
/// instead of one.
struct BenchSuiteCompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two results of one suite (e.g. the defaults and a --config) entry by entry.",
        discussion: """
        BASE and NEW are bench-suite results files (results.json, or a merged file; a folder holding \
        results.json may be given). Entries are paired by name; an entry that failed or was skipped \
        on either side is listed and left out. Prints a Markdown table: per entry the ATE RMSE of \
        both (mm), the difference, and the median tilt error against gravity where both have it; \
        then, for mono and stereo entries apart and together, the number of pairs, the mean and \
        median ATE of each side, and on how many entries NEW is lower.

        One mono run is one draw from a wide spread (docs/ACCURACY.md): a setting that moves single \
        runs by millimetres either way is judged by the means and counts over many entries (whole \
        flights, starts in flight, other arrangements of the room), not by one.

        Exit 2: a file that is not a results file, or no entry that succeeded on both sides.

        Example:
          worldtrack bench-suite suite.json --jobs 2 --out base
          worldtrack bench-suite suite.json --jobs 2 --config fast.yaml --out fast
          worldtrack bench-suite compare base fast
        """)

    @Argument(help: "The results to compare against (a results file, or a folder with results.json).")
    var base: String

    @Argument(help: "The results compared with it.")
    var new: String

    func run() throws {
        func read(_ path: String) throws -> SuiteReport {
            var isDirectory: ObjCBool = false
            let file = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
                ? path + "/results.json" : path
            return try SuiteReport.read(path: file)
        }
        let comparison = try SuiteComparison(base: read(base), new: read(new), baseName: base, newName: new)
        print(comparison.markdown(), terminator: "")
    }
}

/// Two results of one suite paired by entry name (see `BenchSuiteCompareCommand`).
struct SuiteComparison {
    /// One entry that succeeded on both sides.
    struct Pair: Equatable {
        var name: String
        var stereo: Bool
        var base: SuiteResult
        var new: SuiteResult
    }

    /// The figures of a group of pairs (mono, stereo, all).
    struct Summary: Equatable {
        var label: String
        var count: Int
        var meanBase_m: Double, meanNew_m: Double
        var medianBase_m: Double, medianNew_m: Double
        /// Pairs where NEW's ATE is lower.
        var newLower: Int
        /// Mean median tilt against gravity of the pairs where both sides have it, degrees (nil: none has it).
        var tiltBase_deg: Double?, tiltNew_deg: Double?
    }

    var baseName: String
    var newName: String
    var baseConfig: String?
    var newConfig: String?
    /// Entries in BASE's order that succeeded on both sides.
    var pairs: [Pair]
    /// Entries left out, with why.
    var unpaired: [(name: String, why: String)]

    init(base: SuiteReport, new: SuiteReport, baseName: String, newName: String) throws {
        self.baseName = baseName; self.newName = newName
        baseConfig = base.config; newConfig = new.config
        let newByName = Dictionary(new.entries.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var pairs: [Pair] = [], unpaired: [(String, String)] = []
        for b in base.entries {
            guard let n = newByName[b.name] else { unpaired.append((b.name, "not in \(newName)")); continue }
            guard b.succeeded else { unpaired.append((b.name, "\(b.skipped != nil ? "skipped" : "failed") in \(baseName)")); continue }
            guard n.succeeded else { unpaired.append((b.name, "\(n.skipped != nil ? "skipped" : "failed") in \(newName)")); continue }
            pairs.append(Pair(name: b.name, stereo: b.stereo, base: b, new: n))
        }
        let baseNames = Set(base.entries.map(\.name))
        for n in new.entries where !baseNames.contains(n.name) { unpaired.append((n.name, "not in \(baseName)")) }
        guard !pairs.isEmpty else {
            throw CLIError.badInput("\(baseName) and \(newName) have no entry that succeeded in both")
        }
        self.pairs = pairs
        self.unpaired = unpaired
    }

    /// The summaries: mono, stereo (each when present) and all pairs.
    var summaries: [Summary] {
        let groups: [(String, [Pair])] = [("mono", pairs.filter { !$0.stereo }), ("stereo", pairs.filter(\.stereo)), ("all", pairs)]
        return groups.filter { !$0.1.isEmpty && !($0.0 == "all" && ($0.1.allSatisfy(\.stereo) || !$0.1.contains(where: \.stereo))) }
            .map { label, group in
                // Every pair succeeded on both sides, so both have an ATE.
                let b = ErrorStatistics(group.compactMap(\.base.ate_rmse_m)), n = ErrorStatistics(group.compactMap(\.new.ate_rmse_m))
                let tilted = group.filter { $0.base.tilt_vs_gravity_median_deg != nil && $0.new.tilt_vs_gravity_median_deg != nil }
                return Summary(label: label, count: group.count, meanBase_m: b.mean, meanNew_m: n.mean,
                               medianBase_m: b.median, medianNew_m: n.median,
                               newLower: group.filter { ($0.new.ate_rmse_m ?? .infinity) < ($0.base.ate_rmse_m ?? .infinity) }.count,
                               tiltBase_deg: SuiteReport.mean(tilted.compactMap(\.base.tilt_vs_gravity_median_deg)),
                               tiltNew_deg: SuiteReport.mean(tilted.compactMap(\.new.tilt_vs_gravity_median_deg)))
            }
    }

    func markdown() -> String {
        func mm(_ v: Double?) -> String { v.map { String(format: "%.1f", 1000 * $0) } ?? "—" }
        func deg(_ v: Double?) -> String { v.map { String(format: "%.3f", $0) } ?? "—" }
        var s = "BASE: \(baseName) (\(baseConfig ?? "the defaults")); NEW: \(newName) (\(newConfig ?? "the defaults"))\n\n"
        s += "| sequence | mode | ATE base (mm) | ATE new (mm) | Δ (mm) | tilt vs gravity base (°) | tilt vs gravity new (°) |\n"
        s += "|---|---|---:|---:|---:|---:|---:|\n"
        for p in pairs {
            let delta = (p.new.ate_rmse_m ?? .nan) - (p.base.ate_rmse_m ?? .nan)
            s += "| \(p.name) | \(p.stereo ? "stereo" : "mono") | \(mm(p.base.ate_rmse_m)) | \(mm(p.new.ate_rmse_m)) | "
                + String(format: "%+.1f", 1000 * delta) + " | \(deg(p.base.tilt_vs_gravity_median_deg)) | \(deg(p.new.tilt_vs_gravity_median_deg)) |\n"
        }
        s += "\n| entries | pairs | mean ATE base → new (mm) | median ATE base → new (mm) | NEW lower on | tilt vs gravity, mean base → new (°) |\n"
        s += "|---|---:|---:|---:|---:|---:|\n"
        for m in summaries {
            s += "| \(m.label) | \(m.count) | \(mm(m.meanBase_m)) → \(mm(m.meanNew_m)) | \(mm(m.medianBase_m)) → \(mm(m.medianNew_m)) | "
                + "\(m.newLower) of \(m.count) | \(deg(m.tiltBase_deg)) → \(deg(m.tiltNew_deg)) |\n"
        }
        if !unpaired.isEmpty {
            s += "\nLeft out:\n" + unpaired.map { "- \($0.name): \($0.why)\n" }.joined()
        }
        return s
    }
}
