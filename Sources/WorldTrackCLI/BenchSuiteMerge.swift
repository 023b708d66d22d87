import ArgumentParser
import Foundation

/// `worldtrack bench-suite merge DIR… --out FILE`: joins the results of a suite's shards into one results file.
struct BenchSuiteMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Join the results of a suite's shards into one results file and table.",
        discussion: """
        Reads every bench-suite results file in each DIR (results.json, \
        results-shard-I-of-N.json; a results file may also be given itself) and writes one: every \
        entry in the manifest's order, the means recomputed over all entries that succeeded, the \
        failed ones listed with their error. FILE gets the JSON; the Markdown table goes to FILE \
        with .md for .json, and to stdout.

        Refused, exit 2 naming the files: results of different manifests (another manifest file, \
        by the hash of its bytes, or other entries), of different settings (`run --config`), of \
        different shard counts, a shard twice, an \
        entry twice, a missing shard (unless --partial), results files of a version without the \
        manifest's identity, an existing FILE (unless --force).

        Examples:
          worldtrack bench-suite merge r0 r1 r2 r3 --out /tmp/suite.json
          worldtrack bench-suite merge /shared/results --out suite.json --partial
        """)

    @Argument(help: "Folders holding bench-suite results files (or the files themselves).")
    var inputs: [String]

    @Option(help: "The merged results file (JSON); the Markdown table is written next to it (.md).")
    var out: String

    @Flag(help: "Join the shards that are there when some are missing (the results list the missing ones).")
    var partial = false

    @Flag(help: "Replace FILE and its .md.")
    var force = false

    func run() throws {
        let markdownPath = (out.hasSuffix(".json") ? String(out.dropLast(5)) : out) + ".md"
        try OutputPath.checkFile(out, option: "--out", force: force)
        try OutputPath.checkFile(markdownPath, option: "--out (its table)", force: force)
        let files = try SuiteMerge.resultFiles(inputs)
        let reports = try files.map { ($0, try SuiteReport.read(path: $0)) }
        let merged = try SuiteMerge.merge(reports, partial: partial)
        try merged.writeJSON(to: out)
        try merged.markdown().write(toFile: markdownPath, atomically: true, encoding: .utf8)
        print(merged.markdown(), terminator: "")
        var note = "bench-suite merge: \(merged.entries.count) entries from \(files.count) file\(files.count == 1 ? "" : "s") → \(out)"
        if !merged.failed.isEmpty { note += "; \(merged.failed.count) failed: \(merged.failed.map(\.name).joined(separator: ", "))" }
        if let missing = merged.merged?.missing, !missing.isEmpty {
            note += "; partial: shard\(missing.count == 1 ? "" : "s") \(missing.map(String.init).joined(separator: ", ")) missing"
        }
        FileHandle.standardError.write(Data((note + "\n").utf8))
    }
}

/// Joining shard results: which files, and the checks that they belong together.
enum SuiteMerge {
    /// A results file's name: `results.json` or `results-shard-I-of-N.json`.
    static func isResultsFile(_ name: String) -> Bool {
        name == "results.json" || name.range(of: #"^results-shard-[0-9]+-of-[0-9]+\.json$"#, options: .regularExpression) != nil
    }

    /// The results files of the inputs: those in each folder (sorted by name), or an input that is a file.
    static func resultFiles(_ inputs: [String]) throws -> [String] {
        guard !inputs.isEmpty else { throw CLIError.badInput("merge: give at least one folder of results") }
        var files: [String] = []
        for input in inputs {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDir) else {
                throw CLIError.badInput("\(input): no such folder or file")
            }
            guard isDir.boolValue else { files.append(input); continue }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: input)) ?? []
            let found = names.filter(isResultsFile).sorted()
            guard !found.isEmpty else {
                throw CLIError.badInput("\(input): no bench-suite results file in it (results.json or results-shard-I-of-N.json)")
            }
            files += found.map { (input as NSString).appendingPathComponent($0) }
        }
        return files
    }

    /// One report of the shards' reports (path, report): entries in manifest order, means recomputed.
    /// - Throws: `CLIError.badInput` naming the files when they do not belong to one manifest and shard count,
    ///   when a shard or an entry comes twice, or when a shard is missing and `partial` is false.
    static func merge(_ reports: [(path: String, report: SuiteReport)], partial: Bool) throws -> SuiteReport {
        guard let first = reports.first else { throw CLIError.badInput("merge: no results files") }
        func identity(_ path: String, _ r: SuiteReport) throws -> (ManifestIdentity, Shard) {
            guard let m = r.manifest, let s = r.shard else {
                throw CLIError.badInput("\(path): has no manifest identity (written by an older worldtrack); run its shard again")
            }
            return (m, s)
        }
        let (manifest, firstShard) = try identity(first.path, first.report)
        var byShard: [Int: String] = [:]
        var entryFile: [String: String] = [:]
        var entries: [String: SuiteResult] = [:]
        for (path, report) in reports {
            let (m, s) = try identity(path, report)
            if m.entries != manifest.entries {
                throw CLIError.badInput("\(path) and \(first.path) come from different manifests: entries "
                                        + "[\(m.entries.joined(separator: ", "))] vs [\(manifest.entries.joined(separator: ", "))]")
            }
            if m.fnv1a64 != manifest.fnv1a64 {
                throw CLIError.badInput("\(path) and \(first.path) come from different manifest files (\(m.path), hash "
                                        + "\(m.fnv1a64), vs \(manifest.path), hash \(manifest.fnv1a64)): same entry names, other contents")
            }
            if s.count != firstShard.count {
                throw CLIError.badInput("\(path) is shard \(s.index)/\(s.count) but \(first.path) is shard "
                                        + "\(firstShard.index)/\(firstShard.count): different shard counts")
            }
            if let other = byShard[s.index] {
                throw CLIError.badInput("shard \(s.index)/\(s.count) twice: \(other) and \(path)")
            }
            byShard[s.index] = path
            for e in report.entries {
                guard manifest.entries.contains(e.name) else {
                    throw CLIError.badInput("\(path): entry '\(e.name)' is not in its manifest \(manifest.path)")
                }
                if let other = entryFile[e.name] { throw CLIError.badInput("entry '\(e.name)' twice: in \(other) and \(path)") }
                entryFile[e.name] = path
                entries[e.name] = e
            }
        }
        let missing = (0..<firstShard.count).filter { byShard[$0] == nil }
        if !missing.isEmpty && !partial {
            throw CLIError.badInput("shard\(missing.count == 1 ? "" : "s") \(missing.map(String.init).joined(separator: ", ")) of "
                                    + "\(firstShard.count) missing (given: \(byShard.keys.sorted().map(String.init).joined(separator: ", "))); "
                                    + "--partial joins the shards that are there")
        }
        // Shards run with other settings are other suites.
        let settings = Set(reports.map { $0.report.config ?? "" })
        if settings.count > 1 {
            throw CLIError.badInput("the shards were run with different settings (--config): "
                                    + settings.sorted().map { $0.isEmpty ? "the defaults" : $0 }.joined(separator: ", "))
        }
        var merged = SuiteReport(entries: manifest.entries.compactMap { entries[$0] }, manifest: manifest, shard: nil)
        merged.config = reports.first?.report.config
        merged.merged = MergeInfo(from: reports.map(\.path), shards: firstShard.count, missing: missing)
        return merged
    }
}
