import Foundation
import Sensors

/// Errors in a `--consumer` spec or a consumer's input.
public enum ConsumerError: Error, Equatable, CustomStringConvertible {
    /// The spec names no known consumer.
    case unknownConsumer(String, known: [String])
    /// The spec uses a key the consumer does not take.
    case unknownKey(consumer: String, key: String, allowed: [String])
    /// A key's value cannot be parsed.
    case badValue(consumer: String, key: String, value: String, expected: String)
    /// A required key is missing.
    case missingKey(consumer: String, key: String)
    /// A key is given twice.
    case duplicateKey(consumer: String, key: String)
    /// The spec is not `NAME[:key=value,…]`.
    case malformedSpec(String, reason: String)
    /// An input file is unreadable or invalid.
    case badFile(path: String, reason: String)
    /// A file the consumer would write exists already.
    case fileExists(path: String)

    /// A one-line message naming the consumer, key and value involved.
    public var description: String {
        switch self {
        case let .unknownConsumer(n, known):
            return "unknown consumer '\(n)' (known: \(known.joined(separator: ", ")))"
        case let .unknownKey(c, k, allowed):
            return "consumer '\(c)': unknown key '\(k)' (allowed: \(allowed.joined(separator: ", ")))"
        case let .badValue(c, k, v, e): return "consumer '\(c)': bad value '\(v)' for '\(k)': expected \(e)"
        case let .missingKey(c, k): return "consumer '\(c)': missing required key '\(k)'"
        case let .duplicateKey(c, k): return "consumer '\(c)': key '\(k)' given twice"
        case let .malformedSpec(s, r): return "malformed consumer spec '\(s)': \(r)"
        case let .badFile(p, r): return "\(p): \(r)"
        case let .fileExists(p): return "\(p): file exists; refusing to overwrite (choose an empty output folder)"
        }
    }
}

/// A parsed `NAME[:key=value,key=value,…]` spec. A comma-separated token without `=` continues the previous
/// key's value list, so `cursor:place=1.5,3` gives `place = ["1.5", "3"]`.
public struct ConsumerSpec: Equatable {
    /// Consumer name (lower-cased).
    public var name: String
    /// Key → values, in order of appearance.
    public var options: [(key: String, values: [String])]

    /// Same name and the same keys and values in the same order.
    public static func == (a: ConsumerSpec, b: ConsumerSpec) -> Bool {
        a.name == b.name && a.options.map(\.key) == b.options.map(\.key) && a.options.map(\.values) == b.options.map(\.values)
    }

    /// Parses a spec string.
    public init(parsing spec: String) throws {
        let trimmed = spec.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        name = String(parts[0]).lowercased()
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw ConsumerError.malformedSpec(spec, reason: "expected NAME[:key=value,…]")
        }
        options = []
        guard parts.count == 2 else { return }
        var seen = Set<String>()
        for token in parts[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            if let eq = token.firstIndex(of: "=") {
                let key = String(token[..<eq]).trimmingCharacters(in: .whitespaces).lowercased()
                let value = String(token[token.index(after: eq)...])
                guard !key.isEmpty else { throw ConsumerError.malformedSpec(spec, reason: "empty key in '\(token)'") }
                guard !seen.contains(key) else { throw ConsumerError.duplicateKey(consumer: name, key: key) }
                seen.insert(key)
                options.append((key, [value]))
            } else {
                guard !options.isEmpty, !token.isEmpty else {
                    throw ConsumerError.malformedSpec(spec, reason: token.isEmpty ? "empty item" : "'\(token)' is not key=value")
                }
                options[options.count - 1].values.append(token)
            }
        }
    }

    /// Values of a key, if given.
    public func values(_ key: String) -> [String]? { options.first { $0.key == key }?.values }

    /// Throws `unknownKey` for any key outside `allowed`.
    public func checkKeys(allowed: [String]) throws {
        for o in options where !allowed.contains(o.key) {
            throw ConsumerError.unknownKey(consumer: name, key: o.key, allowed: allowed)
        }
    }

    /// The single value of a key (error if it has a list).
    public func single(_ key: String) throws -> String? {
        guard let v = values(key) else { return nil }
        guard v.count == 1 else {
            throw ConsumerError.badValue(consumer: name, key: key, value: v.joined(separator: ","), expected: "one value")
        }
        return v[0]
    }

    /// A positive integer value.
    public func positiveInt(_ key: String) throws -> Int? {
        guard let s = try single(key) else { return nil }
        guard let v = Int(s), v > 0 else {
            throw ConsumerError.badValue(consumer: name, key: key, value: s, expected: "a positive integer")
        }
        return v
    }

    /// A non-negative number value.
    public func nonNegativeDouble(_ key: String) throws -> Double? {
        try finiteDouble(key, expected: "a non-negative number") { $0 >= 0 }
    }

    /// A positive number value.
    public func positiveDouble(_ key: String) throws -> Double? {
        try finiteDouble(key, expected: "a positive number") { $0 > 0 }
    }

    /// A finite number value that `accepts`; otherwise a `badValue` error saying what was `expected`.
    private func finiteDouble(_ key: String, expected: String, accepts: (Double) -> Bool) throws -> Double? {
        guard let s = try single(key) else { return nil }
        guard let v = Double(s), v.isFinite, accepts(v) else {
            throw ConsumerError.badValue(consumer: name, key: key, value: s, expected: expected)
        }
        return v
    }

    /// A switch: `on` or `off` (true or false).
    public func onOff(_ key: String) throws -> Bool? {
        guard let s = try single(key) else { return nil }
        switch s {
        case "on": return true
        case "off": return false
        default: throw ConsumerError.badValue(consumer: name, key: key, value: s, expected: "on or off")
        }
    }

    /// The single time of a key (see `StreamTime`; error if it lists several).
    public func singleTime(_ key: String) throws -> StreamTime? {
        guard let t = try times(key) else { return nil }
        guard t.count == 1 else {
            throw ConsumerError.badValue(consumer: name, key: key, value: values(key)!.joined(separator: ","), expected: "one time")
        }
        return t[0]
    }

    /// Time values (see `StreamTime`).
    public func times(_ key: String) throws -> [StreamTime]? {
        guard let v = values(key) else { return nil }
        return try v.map { s in
            guard let t = StreamTime(parsing: s) else {
                throw ConsumerError.badValue(consumer: name, key: key, value: s, expected: StreamTime.grammar)
            }
            return t
        }
    }
}

/// A time given to a consumer: seconds from the first frame, or an absolute timestamp.
///
/// Grammar: `2.5` or `2.5s` → seconds after the first frame; `1403715273262142976ns`, or a bare integer of
/// 13 digits or more → absolute nanoseconds (the dataset's clock).
public enum StreamTime: Equatable {
    /// Seconds after the first frame.
    case relativeSeconds(Double)
    /// Absolute time, ns.
    case absolute(TimestampNs)

    /// A human description of the grammar, for error messages.
    public static let grammar = "seconds from the first frame (e.g. 2.5 or 2.5s) or absolute nanoseconds (e.g. 1403715273262142976ns)"

    /// Parses the grammar above; `nil` when invalid or negative.
    public init?(parsing s: String) {
        let t = s.trimmingCharacters(in: .whitespaces).lowercased()
        if t.hasSuffix("ns") {
            guard let v = Int64(t.dropLast(2)), v >= 0 else { return nil }
            self = .absolute(v)
        } else if t.hasSuffix("s") {
            guard let v = Double(t.dropLast()), v.isFinite, v >= 0, v < 1e9 else { return nil }
            self = .relativeSeconds(v)
        } else if t.count >= 13, let v = Int64(t), v >= 0 {
            self = .absolute(v)
        } else if let v = Double(t), v.isFinite, v >= 0, v < 1e9 {
            self = .relativeSeconds(v)
        } else {
            return nil
        }
    }

    /// The absolute time given the first frame's time.
    public func resolve(firstFrame t0: TimestampNs) -> TimestampNs {
        switch self {
        case let .relativeSeconds(s):
            // Saturating: a time past the end of the Int64 clock (a taps file's t_s = 1e300) is "never".
            guard s.isFinite, s < 9.2e9 else { return s < 0 ? t0 : .max }
            let (t, overflow) = t0.addingReportingOverflow(Time.nanoseconds(s))
            return overflow ? .max : t
        case let .absolute(ns): return ns
        }
    }
}
