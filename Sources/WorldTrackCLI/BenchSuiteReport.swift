import Evaluation
import Foundation

/// The outcome of one suite entry (`results*.json`'s `entries`).
struct SuiteResult: Codable, Equatable {
    var name: String
    var dataset: String
    var stereo: Bool
    var alignment: String
    var frames: Int?
    var ate_rmse_m: Double?
    var ate_median_m: Double?
    var rot_rmse_deg: Double?
    /// Median tilt error (``TiltError``), degrees: against the ground truth as given (its frame's own tilt included).
    var tilt_median_deg: Double?
    /// Median tilt error against gravity: the ground truth levelled first (``TiltError/init(pairs:levelledBy:)``), degrees; nil
    /// where gravity cannot be measured from the recording with the ground truth's own accelerometer bias.
    var tilt_vs_gravity_median_deg: Double?
    /// RPE headline: the mean, over the RPE lengths that have pose pairs, of the mean translation error as a
    /// percentage of the length (rpg_trajectory_evaluation's lengths, 10–50 % of the path).
    var rpe_trans_pct: Double?
    /// RPE headline: the mean, over the same lengths, of the mean rotation error, degrees.
    var rpe_rot_deg: Double?
    /// The RPE per length, as `worldtrack eval --json` gives it.
    var rpe: [EvaluationSummary.Segment]?
    var completeness: Double?
    var ms_per_frame_median: Double?
    var fps: Double?
    var seconds_to_normal: Double?
    var error: String?
    /// Why the entry was not run (its recording is absent); not a failure.
    var skipped: String?

    /// Evaluated with figures (neither failed nor skipped).
    var succeeded: Bool { error == nil && skipped == nil && ate_rmse_m != nil }

    init(name: String, dataset: String, stereo: Bool, alignment: String) {
        self.name = name; self.dataset = dataset; self.stereo = stereo; self.alignment = alignment
    }

    /// Sets the figures of an evaluation.
    mutating func record(_ report: EvaluationReport) {
        ate_rmse_m = report.ate.position.rmse
        ate_median_m = report.ate.position.median
        rot_rmse_deg = report.ate.rotation.rmse
        tilt_median_deg = report.tilt.statistics.median
        completeness = report.completeness
        let summary = EvaluationSummary(report)
        rpe = summary.rpe
        let withPairs = summary.rpe.filter { $0.pairs > 0 }
        rpe_trans_pct = SuiteReport.mean(withPairs.compactMap(\.trans_mean_pct))
        rpe_rot_deg = SuiteReport.mean(withPairs.compactMap(\.rot_mean_deg))
    }
}

/// Which manifest a results file comes from: its path, a hash of its bytes and its entry names, so that `merge`
/// joins only shards of one manifest.
struct ManifestIdentity: Codable, Equatable {
    var path: String
    /// FNV-1a 64-bit hash of the manifest file's bytes, hexadecimal (an identity check, not a security one).
    var fnv1a64: String
    /// The manifest's entry names, in order.
    var entries: [String]

    init(path: String, bytes: Data, entries: [String]) {
        self.path = path
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        fnv1a64 = String(format: "%016llx", hash)
        self.entries = entries
    }
}

/// What a merged report was joined from.
struct MergeInfo: Codable, Equatable {
    /// The results files, in the order given.
    var from: [String]
    /// N of the shards' I/N.
    var shards: Int
    /// Shard indices absent (`merge --partial`).
    var missing: [Int]
}

/// A failed (or skipped) entry, by name.
struct SuiteProblem: Codable, Equatable {
    var name: String
    var error: String
}

/// The suite's results (`results*.json`) and their Markdown table.
///
/// The means are over the entries that succeeded; failed entries are listed by name with their error (and say in the
/// table that they are left out), so a mean never silently covers fewer entries than the suite has.
struct SuiteReport: Codable {
    /// The manifest the results come from (absent in files of older versions).
    var manifest: ManifestIdentity?
    /// The shard the results cover (0/1: the whole manifest).
    var shard: Shard?
    /// For a report joined by `bench-suite merge`: what it was joined from.
    var merged: MergeInfo?
    /// The settings file every run was given (`bench-suite run --config`), absolute; nil: the defaults.
    var config: String?
    var entries: [SuiteResult]
    /// Entries the means are over (those that succeeded).
    var mean_over: Int
    var mean_ate_rmse_m: Double?
    var mean_rpe_trans_pct: Double?
    var mean_rpe_rot_deg: Double?
    var mean_ms_per_frame: Double?
    /// Entries whose run or evaluation failed: not in the means.
    var failed: [SuiteProblem]
    /// Entries not run (their recording is absent): not in the means, not failures.
    var skipped: [SuiteProblem]

    init(entries: [SuiteResult], manifest: ManifestIdentity?, shard: Shard?) {
        self.manifest = manifest
        self.shard = shard
        self.entries = entries
        let ok = entries.filter(\.succeeded)
        mean_over = ok.count
        mean_ate_rmse_m = Self.mean(ok.compactMap(\.ate_rmse_m))
        mean_rpe_trans_pct = Self.mean(ok.compactMap(\.rpe_trans_pct))
        mean_rpe_rot_deg = Self.mean(ok.compactMap(\.rpe_rot_deg))
        mean_ms_per_frame = Self.mean(ok.compactMap(\.ms_per_frame_median))
        failed = entries.filter { $0.skipped == nil && !$0.succeeded }
            .map { SuiteProblem(name: $0.name, error: $0.error ?? "no evaluation") }
        skipped = entries.compactMap { e in e.skipped.map { SuiteProblem(name: e.name, error: $0) } }
    }

    static func mean(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }

    static func read(path: String) throws -> SuiteReport {
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError.badInput("\(path): cannot read") }
        do { return try JSONDecoder().decode(SuiteReport.self, from: data) } catch {
            throw CLIError.badInput("\(path): not a bench-suite results file: \(error)")
        }
    }

    func writeJSON(to path: String) throws {
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try enc.encode(self).write(to: URL(fileURLWithPath: path))
    }

    func markdown() -> String {
        func f(_ v: Double?, _ fmt: String) -> String { v.map { String(format: fmt, $0) } ?? "—" }
        var s = "| sequence | mode | align | frames | ATE RMSE (m) | ATE median (m) | rot RMSE (°) | tilt median (°) | tilt vs gravity (°) "
            + "| RPE trans (%) | RPE rot (°) | completeness | ms/frame | status |\n"
        s += "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n"
        for e in entries {
            let status = e.skipped != nil ? "skipped" : (e.succeeded ? "ok" : "**failed**")
            s += "| \(e.name) | \(e.stereo ? "stereo" : "mono") | \(e.alignment) | \(e.frames.map(String.init) ?? "—") | "
            s += "\(f(e.ate_rmse_m, "%.4f")) | \(f(e.ate_median_m, "%.4f")) | \(f(e.rot_rmse_deg, "%.2f")) | \(f(e.tilt_median_deg, "%.3f")) | "
            s += "\(f(e.tilt_vs_gravity_median_deg, "%.3f")) | "
            s += "\(f(e.rpe_trans_pct, "%.2f")) | \(f(e.rpe_rot_deg, "%.3f")) | "
            s += "\(f(e.completeness.map { $0 * 100 }, "%.1f %%")) | \(f(e.ms_per_frame_median, "%.2f")) | \(status) |\n"
        }
        s += "| **mean of \(mean_over) of \(entries.count)** | | | | \(f(mean_ate_rmse_m, "%.4f")) | | | | | "
            + "\(f(mean_rpe_trans_pct, "%.2f")) | \(f(mean_rpe_rot_deg, "%.3f")) | | \(f(mean_ms_per_frame, "%.2f")) | |\n"
        s += "\nMeans over the \(mean_over) entr\(mean_over == 1 ? "y" : "ies") that succeeded"
        var left: [String] = []
        if !failed.isEmpty { left.append("\(failed.count) failed") }
        if !skipped.isEmpty { left.append("\(skipped.count) skipped") }
        s += left.isEmpty ? ".\n" : " (\(left.joined(separator: ", ")): not in the means).\n"
        s += "RPE: the mean over the segment lengths (10–50 % of the path) of the mean translation error in % of the "
            + "length, and of the mean rotation error. Tilt: the gravity direction in the body frame against the ground truth's "
            + "vertical as given, and against gravity measured from the recording's IMU (`worldtrack eval --level-groundtruth`; "
            + "a frame levelled by hand can be a fraction of a degree off; — where it cannot be measured).\n"
        if let config { s += "\nSettings: every run read \(config) (`worldtrack run --config`).\n" }
        if let merged {
            s += "\nJoined from \(merged.from.count) file\(merged.from.count == 1 ? "" : "s") (shards of \(merged.shards))"
            s += merged.missing.isEmpty ? ".\n" : "; **partial**: shard\(merged.missing.count == 1 ? "" : "s") "
                + "\(merged.missing.map(String.init).joined(separator: ", ")) missing.\n"
        }
        if !failed.isEmpty {
            s += "\nFailed:\n" + failed.map { "- \($0.name): \($0.error)\n" }.joined()
        }
        if !skipped.isEmpty {
            s += "\nSkipped:\n" + skipped.map { "- \($0.name): \($0.error)\n" }.joined()
        }
        return s
    }
}
