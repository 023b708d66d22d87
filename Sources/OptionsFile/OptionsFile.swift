import Foundation
import Pipeline
import Sensors
import Yams

/// A configuration file: YAML whose nested keys are the dotted setting keys of `Settings` (`estimator:` →
/// `updater:` → `pixelNoiseStd: 1.0`). Keys left out keep their defaults; an unknown key, a value of the wrong type
/// or out of range is an error naming the file, the line and the key.
///
/// ```yaml
/// estimator:
///   updater:
///     pixelNoiseStd: 0.8      # pixels
/// frontend:
///   featureBudget: 250
/// ```
public enum OptionsFile {
    /// What went wrong reading a configuration file.
    public struct ReadError: Error, CustomStringConvertible, Equatable {
        /// The file (as given), the 1-based line (0 when unknown) and the message.
        public var path: String, line: Int, message: String
        public var description: String { line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)" }
    }

    /// Reads the file at `path` over `base` (the defaults, or options already set).
    public static func read(path: String, over base: PipelineOptions = PipelineOptions()) throws -> PipelineOptions {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ReadError(path: path, line: 0, message: "cannot read the configuration file: \((error as NSError).localizedDescription)")
        }
        return try parse(text, path: path, over: base)
    }

    /// Parses configuration text (`path` names it in errors).
    public static func parse(_ text: String, path: String = "<config>", over base: PipelineOptions = PipelineOptions()) throws -> PipelineOptions {
        // Yams composes recursively: absurdly deep nesting is refused before it can overflow the stack.
        do { try SensorYAML.checkNesting(text, file: path) } catch let error as DatasetError {
            throw ReadError(path: path, line: error.problems.first?.line ?? 0, message: "nesting deeper than \(SensorYAML.maximumNesting) levels: not a configuration file")
        }
        let root: Node?
        do { root = try Yams.compose(yaml: text) } catch let error as YamlError {
            throw ReadError(path: path, line: Self.line(of: error), message: "not valid YAML: \(Self.summary(of: error))")
        }
        guard let root else { return base } // an empty file: the defaults
        guard case .mapping = root else {
            throw ReadError(path: path, line: root.mark?.line ?? 0, message: "expected a mapping of settings (key: value) at the top")
        }
        var options = base
        var seen = Set<String>()
        try visit(root, prefix: "", path: path, options: &options, seen: &seen)
        return options
    }

    private static func visit(_ node: Node, prefix: String, path: String, options: inout PipelineOptions, seen: inout Set<String>) throws {
        guard let mapping = node.mapping else { return }
        for (keyNode, valueNode) in mapping {
            let line = keyNode.mark?.line ?? 0
            guard let name = keyNode.scalar?.string else { throw ReadError(path: path, line: line, message: "a key must be a plain name") }
            let key = prefix.isEmpty ? name : prefix + "." + name
            if let setting = Settings.setting(key) {
                guard seen.insert(key).inserted else { throw ReadError(path: path, line: line, message: "\(key) is set twice") }
                let value: SettingValue
                do { value = try parse(valueNode, for: setting) } catch let error as SettingError {
                    throw ReadError(path: path, line: valueNode.mark?.line ?? line, message: "\(key): \(error.reason)")
                }
                do { try setting.apply(value, to: &options) } catch let error as SettingError {
                    throw ReadError(path: path, line: valueNode.mark?.line ?? line, message: "\(key): \(error.reason)")
                }
            } else if Settings.all.contains(where: { $0.key.hasPrefix(key + ".") }) {
                guard case .mapping = valueNode else {
                    throw ReadError(path: path, line: line, message: "\(key) is a section: expected its settings below it (key: value)")
                }
                try visit(valueNode, prefix: key, path: path, options: &options, seen: &seen)
            } else {
                let reason = Settings.notInFile[key].map { " (\($0))" } ?? ""
                throw ReadError(path: path, line: line, message: "unknown setting \(key)\(reason)\(suggestion(for: key)); `worldtrack config --defaults` lists them all")
            }
        }
    }

    /// Reads one value node for `setting`, checking its type and range.
    static func parse(_ node: Node, for setting: Setting) throws -> SettingValue {
        guard let scalar = node.scalar else { throw SettingError("expected a single value, not a list or a section") }
        let text = scalar.string
        if setting.optional, scalar.style == .plain, ["null", "~", "Null", "NULL", ""].contains(text) { return .none }
        switch setting.kind {
        case .bool:
            switch text {
            case "true", "True", "TRUE": return .bool(true)
            case "false", "False", "FALSE": return .bool(false)
            default: throw SettingError("expected true or false, got \(quoted(text))")
            }
        case .int(let range):
            let digits = text.replacingOccurrences(of: "_", with: "")
            guard let i = Int64(digits) else { throw SettingError("expected a whole number, got \(quoted(text))") }
            guard range.contains(i) else { throw SettingError("must be between \(range.lowerBound) and \(range.upperBound), got \(i)") }
            return .int(i)
        case .double(let range):
            guard let d = Double(text.replacingOccurrences(of: "_", with: "")), d.isFinite else {
                throw SettingError("expected a finite number, got \(quoted(text))")
            }
            guard range.contains(d) else {
                throw SettingError("must be between \(SettingValue.yamlNumber(range.lowerBound)) and \(SettingValue.yamlNumber(range.upperBound)), got \(text)")
            }
            return .double(d)
        case .word(let words):
            let allowed = words.contains(text) || words.contains { $0.hasSuffix(":CLIP") && text.hasPrefix($0.dropLast(4)) }
            guard allowed else { throw SettingError("expected one of \(words.joined(separator: ", ")), got \(quoted(text))") }
            return .word(text)
        }
    }

    /// The full file with every setting at its value in `options` (the defaults unless given), each with its
    /// meaning as a comment.
    public static func yaml(_ options: PipelineOptions = PipelineOptions()) -> String {
        var out = "# WorldTrack run configuration (`worldtrack run --config FILE`). Every key is optional: a key left out keeps\n"
            + "# the value shown here. SI units (metres, seconds, radians) unless the name or comment says otherwise.\n"
        var open: [String] = []
        for setting in Settings.all {
            let parts = setting.key.split(separator: ".").map(String.init)
            let sections = Array(parts.dropLast())
            var common = 0
            while common < min(open.count, sections.count), open[common] == sections[common] { common += 1 }
            open = Array(open.prefix(common))
            for s in sections[common...] {
                if open.isEmpty { out += "\n" }
                out += String(repeating: "  ", count: open.count) + s + ":\n"
                open.append(s)
            }
            let indent = String(repeating: "  ", count: open.count)
            for line in wrap(setting.help, width: 100 - indent.count - 2) { out += indent + "# " + line + "\n" }
            out += indent + parts.last! + ": " + setting.value(in: options).description + "\n"
        }
        return out
    }

    /// Every setting's value in `options`, by dotted key (for a run's summary).
    public static func values(_ options: PipelineOptions) -> [(key: String, value: SettingValue)] {
        Settings.all.map { ($0.key, $0.value(in: options)) }
    }

    private static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = [], current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty, current.count + 1 + word.count > width { lines.append(current); current = "" }
            current += (current.isEmpty ? "" : " ") + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    private static func quoted(_ s: String) -> String {
        let clean = s.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : String($0) }.joined()
        return "'" + (clean.count > 40 ? String(clean.prefix(40)) + "…" : clean) + "'"
    }

    /// " (did you mean X?)" for a key that differs from a known one only in case or in its last name.
    private static func suggestion(for key: String) -> String {
        let lower = key.lowercased()
        if let match = Settings.all.first(where: { $0.key.lowercased() == lower }) { return " (did you mean \(match.key)?)" }
        let last = key.split(separator: ".").last.map(String.init)?.lowercased() ?? ""
        let matches = Settings.all.filter { $0.key.split(separator: ".").last.map(String.init)?.lowercased() == last }
        if matches.count == 1 { return " (did you mean \(matches[0].key)?)" }
        return ""
    }

    private static func line(of error: YamlError) -> Int {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): return mark.line
        default: return 0
        }
    }

    private static func summary(of error: YamlError) -> String {
        switch error {
        case .scanner(_, let problem, _, _), .parser(_, let problem, _, _), .composer(_, let problem, _, _): return problem
        default: return "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
        }
    }
}
