import Foundation

/// One problem found while loading or validating a dataset, naming the file (and line) it is in.
///
/// Fatal problems make the dataset unusable (`ASLDataset.init` throws a `DatasetError` carrying them);
/// warnings are kept in `ASLDataset.problems` and the data around them is used as far as it can be.
public struct DatasetProblem: Equatable, Sendable, Codable, CustomStringConvertible {
    /// How bad a problem is.
    public enum Severity: String, Equatable, Sendable, Codable {
        /// The dataset cannot be used as it is.
        case fatal
        /// The dataset can be used; something is missing or unusual.
        case warning
    }

    /// Fatal or warning.
    public var severity: Severity
    /// The file or folder the problem is in (as a path).
    public var file: String
    /// The 1-based line of `file`, when the problem is on one line of a text file.
    public var line: Int?
    /// What is wrong, in words (control characters quoted from the file are escaped, see `PrintableText`).
    public var message: String

    /// A problem in `file` (at `line`, if given).
    public init(_ severity: Severity, file: String, line: Int? = nil, message: String) {
        self.severity = severity; self.file = file; self.line = line; self.message = PrintableText.escape(message)
    }

    /// `file:line: message` (or `file: message`), the form compilers use.
    public var description: String {
        if let line { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }
}

/// The error `ASLDataset.init` throws when the dataset has at least one fatal problem.
///
/// Carries every problem found (fatal ones and warnings), so a caller can show them all.
public struct DatasetError: Error, LocalizedError, Equatable, Sendable, CustomStringConvertible {
    /// The dataset's root folder (or, for `SensorYAML`, the file that was read).
    public var path: String
    /// Every problem found, fatal ones first.
    public var problems: [DatasetProblem]

    /// An error for the dataset at `path` with these problems.
    public init(path: String, problems: [DatasetProblem]) {
        self.path = path
        self.problems = problems.filter { $0.severity == .fatal } + problems.filter { $0.severity != .fatal }
    }

    /// An error with a single fatal problem.
    public init(path: String, file: String, line: Int? = nil, message: String) {
        self.init(path: path, problems: [DatasetProblem(.fatal, file: file, line: line, message: message)])
    }

    /// The fatal problems only.
    public var fatalProblems: [DatasetProblem] { problems.filter { $0.severity == .fatal } }

    /// The first fatal problem on the first line, the other fatal problems below it, one a line.
    public var description: String {
        let fatal = fatalProblems
        guard let first = fatal.first else { return "\(path): unusable dataset" }
        if fatal.count == 1 { return first.description }
        return ([first.description] + fatal.dropFirst().map { "  \($0.description)" }).joined(separator: "\n")
    }

    /// The same as `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}

/// Collects problems while a loader runs, capping repeats of one kind per file (or folder) so a
/// broken 30 000-row file gives a readable list.
struct ProblemLog {
    private(set) var problems: [DatasetProblem] = []
    /// Per capped group and kind: how many were seen, their severity, and the index of the last listed one.
    private var counts: [String: (count: Int, severity: DatasetProblem.Severity, lastIndex: Int)] = [:]
    /// At most this many problems of one kind for one file are listed; the rest are counted.
    let maxPerKind = 5

    var hasFatal: Bool { problems.contains { $0.severity == .fatal } }

    mutating func add(_ problem: DatasetProblem) { problems.append(problem) }

    mutating func fatal(_ file: String, line: Int? = nil, _ message: String) {
        add(DatasetProblem(.fatal, file: file, line: line, message: message))
    }

    mutating func warning(_ file: String, line: Int? = nil, _ message: String) {
        add(DatasetProblem(.warning, file: file, line: line, message: message))
    }

    /// Adds a problem of kind `kind` unless `maxPerKind` of that kind in `group` (default: the
    /// problem's file; a folder for per-image problems) are listed already.
    mutating func capped(_ kind: String, group: String? = nil, _ problem: DatasetProblem) {
        let key = (group ?? problem.file) + "\u{0}" + kind
        let previous = counts[key]
        let n = previous?.count ?? 0
        if n < maxPerKind {
            add(problem)
            counts[key] = (n + 1, problem.severity, problems.count - 1)
        } else if let previous {
            counts[key] = (n + 1, previous.severity, previous.lastIndex)
        }
    }

    /// Puts a summary line right after the listed problems of each capped kind that had more.
    mutating func summariseCapped() {
        let over = counts.filter { $0.value.count > maxPerKind }.sorted { $0.value.lastIndex > $1.value.lastIndex }
        for (key, value) in over {
            let parts = key.split(separator: "\u{0}", maxSplits: 1).map(String.init)
            let kind = parts.count > 1 ? parts[1] : "problems"
            problems.insert(DatasetProblem(value.severity, file: parts[0],
                                           message: "\(value.count) \(kind) in all; the first \(maxPerKind) are listed"),
                            at: value.lastIndex + 1)
        }
        counts.removeAll()
    }
}
