import Pipeline
import Vision

/// A value of one configuration setting, as written in the file.
public enum SettingValue: Equatable, Sendable, CustomStringConvertible {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    /// One of a fixed set of words (an enumeration), or `word:number` for one with a parameter.
    case word(String)
    /// No value (`null`): an optional setting turned off.
    case none

    /// The value as the file writes it (YAML).
    public var description: String {
        switch self {
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return SettingValue.yamlNumber(d)
        case .word(let w): return w
        case .none: return "null"
        }
    }

    /// A double in the shortest form that reads back exactly, always with a `.` or an exponent (so it reads as a
    /// float, not an integer).
    static func yamlNumber(_ d: Double) -> String {
        let s = "\(d)"
        return s.contains(".") || s.contains("e") || s.contains("n") ? s : s + ".0"
    }
}

/// One tunable parameter of a run: its dotted key in the configuration file (the Swift property path below
/// `PipelineOptions`, e.g. `estimator.updater.pixelNoiseStd`), what it means and its unit, and how to read and
/// write it on `PipelineOptions`.
public struct Setting: Sendable {
    /// What a setting holds, which decides how a file value is read and checked.
    public enum Kind: Sendable, Equatable {
        case bool
        /// A whole number within the range.
        case int(ClosedRange<Int64>)
        /// A finite number within the range.
        case double(ClosedRange<Double>)
        /// One of these words (see `parse`).
        case word([String])
    }

    /// Dotted key, e.g. `estimator.updater.pixelNoiseStd`.
    public let key: String
    /// Meaning and unit (from the option's documentation).
    public let help: String
    /// Type and allowed range.
    public let kind: Kind
    /// Whether `null` is allowed (an optional setting; `null` turns it off).
    public let optional: Bool
    let get: @Sendable (PipelineOptions) -> SettingValue
    let set: @Sendable (inout PipelineOptions, SettingValue) throws -> Void

    /// The setting's value in `options`.
    public func value(in options: PipelineOptions) -> SettingValue { get(options) }

    /// Sets the setting in `options` to `value`, which must already have been checked against `kind` (`parse`).
    public func apply(_ value: SettingValue, to options: inout PipelineOptions) throws { try set(&options, value) }
}

/// Why a value was refused.
public struct SettingError: Error, Equatable, Sendable {
    /// What is wrong with the value ("must be between 0 and 1", …).
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}

extension Setting {
    static func bool(_ key: String, _ path: WritableKeyPath<PipelineOptions, Bool> & Sendable, _ help: String) -> Setting {
        Setting(key: key, help: help, kind: .bool, optional: false, get: { .bool($0[keyPath: path]) },
                set: { o, v throws in if case .bool(let b) = v { o[keyPath: path] = b } })
    }

    static func double(_ key: String, _ path: WritableKeyPath<PipelineOptions, Double> & Sendable, _ help: String,
                       _ range: ClosedRange<Double> = 0...Double.greatestFiniteMagnitude) -> Setting {
        Setting(key: key, help: help, kind: .double(range), optional: false, get: { .double($0[keyPath: path]) },
                set: { o, v throws in if case .double(let d) = v { o[keyPath: path] = d } })
    }

    static func int(_ key: String, _ path: WritableKeyPath<PipelineOptions, Int> & Sendable, _ help: String,
                    _ range: ClosedRange<Int64> = 0...Int64(Int32.max)) -> Setting {
        Setting(key: key, help: help, kind: .int(range), optional: false, get: { .int(Int64($0[keyPath: path])) },
                set: { o, v throws in if case .int(let i) = v { o[keyPath: path] = Int(i) } })
    }

    static func int64(_ key: String, _ path: WritableKeyPath<PipelineOptions, Int64> & Sendable, _ help: String,
                      _ range: ClosedRange<Int64> = 0...Int64.max) -> Setting {
        Setting(key: key, help: help, kind: .int(range), optional: false, get: { .int($0[keyPath: path]) },
                set: { o, v throws in if case .int(let i) = v { o[keyPath: path] = i } })
    }

    static func optionalInt(_ key: String, _ path: WritableKeyPath<PipelineOptions, Int?> & Sendable, _ help: String,
                            _ range: ClosedRange<Int64> = 1...Int64(Int32.max)) -> Setting {
        Setting(key: key, help: help, kind: .int(range), optional: true, get: { $0[keyPath: path].map { .int(Int64($0)) } ?? .none },
                set: { o, v throws in
                    if case .int(let i) = v { o[keyPath: path] = Int(i) } else if case .none = v { o[keyPath: path] = nil }
                })
    }

    static func optionalDouble(_ key: String, _ path: WritableKeyPath<PipelineOptions, Double?> & Sendable, _ help: String,
                               _ range: ClosedRange<Double>) -> Setting {
        Setting(key: key, help: help, kind: .double(range), optional: true, get: { $0[keyPath: path].map { .double($0) } ?? .none },
                set: { o, v throws in
                    if case .double(let d) = v { o[keyPath: path] = d } else if case .none = v { o[keyPath: path] = nil }
                })
    }

    static func optionalInt64(_ key: String, _ path: WritableKeyPath<PipelineOptions, Int64?> & Sendable, _ help: String,
                              _ range: ClosedRange<Int64> = 1...Int64.max) -> Setting {
        Setting(key: key, help: help, kind: .int(range), optional: true, get: { $0[keyPath: path].map { .int($0) } ?? .none },
                set: { o, v throws in
                    if case .int(let i) = v { o[keyPath: path] = i } else if case .none = v { o[keyPath: path] = nil }
                })
    }

    /// An enumeration written as a word (`words` lists them for `--defaults` and the error messages).
    static func word(_ key: String, _ words: [String], _ help: String, get: @escaping @Sendable (PipelineOptions) -> String,
                     set: @escaping @Sendable (inout PipelineOptions, String) throws -> Void) -> Setting {
        Setting(key: key, help: help, kind: .word(words), optional: false, get: { .word(get($0)) },
                set: { o, v throws in if case .word(let w) = v { try set(&o, w) } })
    }
}
