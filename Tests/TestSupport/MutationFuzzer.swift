import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// SplitMix64: a small, fast, seedable generator, so a fuzz run is reproducible from its seed.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }
    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476C_E5B9_E75B
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A deterministic mutation fuzzer: each input is a seed input with 1–8 random mutations (bit flips,
/// random or boundary bytes, insertions of dictionary tokens or random bytes, deletions, duplications,
/// truncations, 32-bit boundary values, splices of two seeds). Same `seed` → same inputs.
public struct MutationFuzzer {
    /// The valid (or interesting) inputs mutations start from.
    public var seeds: [[UInt8]]
    /// Tokens of the format (separators, keywords, extreme numbers) that mutations insert.
    public var dictionary: [[UInt8]]
    private var rng: SplitMix64

    /// A fuzzer over `seeds` (at least one) with format `dictionary` tokens, reproducible from `seed`.
    public init(seed: UInt64, seeds: [[UInt8]], dictionary: [String] = []) {
        precondition(!seeds.isEmpty, "a fuzzer needs seed inputs")
        self.seeds = seeds
        self.dictionary = dictionary.map { Array($0.utf8) }
        rng = SplitMix64(seed: seed)
    }

    /// Tokens common to the text formats fuzzed here.
    public static let textTokens = [
        ",", "\n", "\r\n", "\r", "#", " ", "\t", "-", "+", ".", "e", "E", "0", "1", "9", "nan", "NaN", "inf", "-inf",
        "1e309", "-1e309", "1e-320", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
        "9223372036.854775807", "9223372036.854775808", "18446744073709551616", "0x1p3", "00000000000000000000001",
        "[", "]", "{", "}", ":", ": ", "- ", "? ", "&a ", "*a", "!!binary ", "!!float ", "%YAML:1.0\n", "%YAML 1.2\n---\n",
        "---\n", "...\n", "\"", "'", "\\", "\u{FEFF}", "\0", "\u{7F}", "\u{1B}[31m", "é", "\u{FFFD}", "{\"type\":\"frame\"", "null", "true",
    ]

    private mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(rng.next() % UInt64(n)) }

    /// The next input.
    public mutating func next() -> [UInt8] {
        var bytes = seeds[below(seeds.count)]
        let mutations = 1 + below(8)
        for _ in 0..<mutations { mutate(&bytes) }
        return bytes
    }

    private mutating func mutate(_ b: inout [UInt8]) {
        let interesting: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF, 0x20, 0x0A, 0x0D, 0x2C, 0x2E, 0x2D, 0x30, 0x39, 0x5B, 0x7B]
        switch below(11) {
        case 0 where !b.isEmpty:  // flip a bit
            b[below(b.count)] ^= UInt8(1) << UInt8(below(8))
        case 1 where !b.isEmpty:  // random byte
            b[below(b.count)] = UInt8(truncatingIfNeeded: rng.next())
        case 2 where !b.isEmpty:  // boundary byte
            b[below(b.count)] = interesting[below(interesting.count)]
        case 3 where !dictionary.isEmpty:  // insert a token
            b.insert(contentsOf: dictionary[below(dictionary.count)], at: below(b.count + 1))
        case 4 where !dictionary.isEmpty && !b.isEmpty:  // overwrite with a token
            let t = dictionary[below(dictionary.count)], at = below(b.count)
            b.replaceSubrange(at..<min(b.count, at + t.count), with: t)
        case 5 where !b.isEmpty:  // delete a range
            let at = below(b.count), n = 1 + below(min(64, b.count - at))
            b.removeSubrange(at..<at + n)
        case 6 where !b.isEmpty:  // duplicate a range
            let at = below(b.count), n = 1 + below(min(64, b.count - at))
            b.insert(contentsOf: Array(b[at..<at + n]), at: below(b.count + 1))
        case 7 where !b.isEmpty:  // truncate
            b.removeSubrange(below(b.count)...)
        case 8 where b.count >= 4:  // a 32-bit boundary value, big-endian (lengths, sizes)
            let values: [UInt32] = [0, 1, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0x0010_0000, 0x0001_0000, UInt32(b.count)]
            let v = values[below(values.count)], at = below(b.count - 3)
            for k in 0..<4 { b[at + k] = UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32(k))) }
        case 9:  // splice with another seed
            let other = seeds[below(seeds.count)]
            let cut = below(b.count + 1), from = below(other.count + 1)
            b = Array(b[..<cut]) + Array(other[from...])
        default:  // insert random bytes
            let n = 1 + below(16)
            b.insert(contentsOf: (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, at: below(b.count + 1))
        }
    }
}

/// Runs fuzz targets: counts, times, and keeps the input being tried in a file, so that after a crash
/// the input that caused it is there to become a corpus case.
public enum FuzzDriver {
    /// Inputs per target: `WORLDTRACK_FUZZ_ITERATIONS` when set (the long run), else `ciDefault`.
    public static func iterations(ciDefault: Int) -> Int {
        if let s = ProcessInfo.processInfo.environment["WORLDTRACK_FUZZ_ITERATIONS"], let n = Int(s), n > 0 { return n }
        return ciDefault
    }

    /// True when a long run was asked for (the current input is then kept in a file for crash reports).
    public static var isLongRun: Bool { ProcessInfo.processInfo.environment["WORLDTRACK_FUZZ_ITERATIONS"] != nil }

    /// What a fuzz run did.
    public struct Report: CustomStringConvertible, Sendable {
        /// Name of the fuzzed reader.
        public var target: String
        /// Inputs tried; of them, accepted (parsed) and rejected (a thrown error).
        public var inputs: Int
        public var accepted: Int
        public var rejected: Int
        /// Wall time of the whole run, and of the slowest single input, seconds.
        public var seconds: Double
        public var slowestInput_s: Double
        public var description: String {
            String(format: "fuzz %@: %d inputs (%d accepted, %d rejected) in %.1f s; slowest input %.2f ms",
                   target, inputs, accepted, rejected, seconds, slowestInput_s * 1000)
        }
    }

    /// Feeds `count` inputs of `fuzzer` to `body`, which returns normally for an accepted input and throws
    /// for a rejected one; `check` sees each thrown error and returns a failure message or nil.
    /// Returns the report and the first `maxFailures` failures (input and message).
    public static func run(_ target: String, fuzzer: inout MutationFuzzer, count: Int, maxFailures: Int = 5,
                           _ body: ([UInt8]) throws -> Void, check: (Error, [UInt8]) -> String?) -> (Report, [(input: [UInt8], message: String)]) {
        let keep = isLongRun ? open(NSTemporaryDirectory() + "worldtrack-fuzz-current-\(target).bin", O_WRONLY | O_CREAT | O_TRUNC, 0o644) : -1
        defer { if keep >= 0 { close(keep) } }
        var report = Report(target: target, inputs: 0, accepted: 0, rejected: 0, seconds: 0, slowestInput_s: 0)
        var failures: [(input: [UInt8], message: String)] = []
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<count {
            let input = fuzzer.next()
            if keep >= 0 {
                _ = ftruncate(keep, 0)
                _ = input.withUnsafeBytes { pwrite(keep, $0.baseAddress, $0.count, 0) }
            }
            let t0 = DispatchTime.now().uptimeNanoseconds
            do {
                try body(input)
                report.accepted += 1
            } catch {
                report.rejected += 1
                if let message = check(error, input), failures.count < maxFailures { failures.append((input, message)) }
            }
            report.slowestInput_s = max(report.slowestInput_s, Double(DispatchTime.now().uptimeNanoseconds - t0) * 1e-9)
            report.inputs += 1
        }
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9
        return (report, failures)
    }

    /// Saved inputs of a corpus folder (every file in it), sorted by name.
    public static func corpus(_ folder: String) -> [(name: String, bytes: [UInt8])] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        return names.compactMap { name in
            FileManager.default.contents(atPath: (folder as NSString).appendingPathComponent(name)).map { (name, [UInt8]($0)) }
        }
    }
}
