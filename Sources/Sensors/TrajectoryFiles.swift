import Foundation
import Geometry

/// An error reading or writing a trajectory file; every case names the file, and the line when there is one.
public enum TrajectoryFileError: Error, Equatable, CustomStringConvertible {
    /// The file could not be read or written (missing, a folder, no permission).
    case unreadable(path: String, reason: String)
    /// The file holds no data rows (only comments or blank lines).
    case empty(path: String)
    /// A data row is malformed: wrong column count, a non-numeric or non-finite value, a bad quaternion.
    case badLine(path: String, line: Int, reason: String)
    /// A row's timestamp is not strictly after the previous row's (unsorted or duplicate).
    case unsorted(path: String, line: Int, reason: String)

    public var description: String { PrintableText.escape(rawDescription) }

    private var rawDescription: String {
        switch self {
        case .unreadable(let p, let r): return "\(p): \(r)"
        case .empty(let p): return "\(p): no trajectory rows (file is empty or only comments)"
        case .badLine(let p, let l, let r): return "\(p):\(l): \(r)"
        case .unsorted(let p, let l, let r): return "\(p):\(l): \(r)"
        }
    }
}

/// Readers and writers of trajectory files: TUM (`t x y z qx qy qz qw`) and ASL ground truth (EuRoC
/// `state_groundtruth_estimate0/data.csv`).
///
/// Poses in both formats are `T_W_B`: the position of the body in the world (metres) and the Hamilton
/// orientation quaternion `q_W_B`. TUM stores the quaternion `x y z w` and time in seconds; ASL stores
/// `w x y z` and integer nanoseconds. Rows must have strictly increasing timestamps.
public enum TrajectoryFile {
    // MARK: TUM

    /// Reads a TUM trajectory (`t x y z qx qy qz qw`, t in seconds, whitespace separated, `#` comments).
    ///
    /// Timestamps are parsed from the decimal text to the nanosecond without going through `Double`,
    /// so a file written by ``writeTUM(_:to:)`` round-trips exactly. Quaternions are normalised.
    public static func readTUM(path: String) throws -> [StampedPose] {
        try parseTUM(try readText(path), source: path)
    }

    /// Parses TUM text; `source` names the origin in error messages.
    public static func parseTUM(_ text: String, source: String) throws -> [StampedPose] {
        var poses: [StampedPose] = []
        for (lineNumber, line) in dataLines(text) {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
            guard fields.count == 8 else {
                throw TrajectoryFileError.badLine(path: source, line: lineNumber,
                    reason: "expected 8 columns (t x y z qx qy qz qw), found \(fields.count)")
            }
            let t_ns = try parseSeconds(fields[0], path: source, line: lineNumber)
            var v = [Double]()
            for (k, f) in fields.dropFirst().enumerated() {
                v.append(try parseFinite(f, column: k + 2, path: source, line: lineNumber))
            }
            let q = try unitQuaternion(w: v[6], x: v[3], y: v[4], z: v[5], path: source, line: lineNumber)
            try checkOrder(t_ns, after: poses.last?.t_ns, path: source, line: lineNumber)
            poses.append(StampedPose(t_ns: t_ns, pose: SE3(rotation: SO3(q), translation: Vec3(v[0], v[1], v[2]))))
        }
        guard !poses.isEmpty else { throw TrajectoryFileError.empty(path: source) }
        return poses
    }

    /// Writes a TUM trajectory: time in seconds with 9 decimals (exact nanoseconds), values at full
    /// (round-trip) precision, quaternion `qx qy qz qw`.
    public static func writeTUM(_ poses: [StampedPose], to path: String) throws {
        try writeText(formatTUM(poses), to: path)
    }

    /// The TUM text of `poses`, with a `#` header line.
    public static func formatTUM(_ poses: [StampedPose]) -> String {
        var out = tumHeader
        out.reserveCapacity(poses.count * 120)
        for p in poses { out += tumLine(p) }
        return out
    }

    /// One TUM row for `pose`, with its newline: seconds with 9 decimals (exact nanoseconds, any `Int64`
    /// time), values at full (round-trip) precision, quaternion `qx qy qz qw`. ``parseTUM(_:source:)``
    /// reads it back exactly.
    public static func tumLine(_ pose: StampedPose) -> String {
        let t = pose.pose.translation, q = pose.pose.rotation.quaternion
        return "\(secondsText(pose.t_ns)) \(t.x) \(t.y) \(t.z) \(q.x) \(q.y) \(q.z) \(q.w)\n"
    }

    /// The `#` header line ``formatTUM(_:)`` starts with (newline included).
    public static let tumHeader = "# timestamp tx ty tz qx qy qz qw\n"

    // MARK: ASL ground truth

    /// Reads an ASL ground-truth CSV: `t_ns, p_x, p_y, p_z, q_w, q_x, q_y, q_z` then optionally
    /// `v_x, v_y, v_z, bw_x, bw_y, bw_z, ba_x, ba_y, ba_z` (17 columns). Rows with 8 columns get zero
    /// velocity and biases. `#` lines are comments.
    public static func readASLGroundTruth(path: String) throws -> [GroundTruthState] {
        try parseASLGroundTruth(try readText(path), source: path)
    }

    /// Parses ASL ground-truth text; `source` names the origin in error messages.
    public static func parseASLGroundTruth(_ text: String, source: String) throws -> [GroundTruthState] {
        var states: [GroundTruthState] = []
        for (lineNumber, line) in dataLines(text) {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 8 || fields.count == 17 else {
                throw TrajectoryFileError.badLine(path: source, line: lineNumber,
                    reason: "expected 17 columns (t_ns, p, q wxyz, v, b_w, b_a) or 8 (t_ns, p, q wxyz), found \(fields.count)")
            }
            guard let t_ns = TimestampNs(fields[0]) else {
                throw TrajectoryFileError.badLine(path: source, line: lineNumber,
                    reason: "column 1: timestamp '\(fields[0])' is not an integer number of nanoseconds")
            }
            guard t_ns >= 0 else {
                throw TrajectoryFileError.badLine(path: source, line: lineNumber,
                    reason: "column 1: timestamp '\(fields[0])' is negative (times must be ≥ 0)")
            }
            var v = [Double]()
            for k in 1..<fields.count {
                v.append(try parseFinite(Substring(fields[k]), column: k + 1, path: source, line: lineNumber))
            }
            let q = try unitQuaternion(w: v[3], x: v[4], y: v[5], z: v[6], path: source, line: lineNumber)
            try checkOrder(t_ns, after: states.last?.t_ns, path: source, line: lineNumber)
            var s = GroundTruthState(t_ns: t_ns, T_W_B: SE3(rotation: SO3(q), translation: Vec3(v[0], v[1], v[2])))
            if v.count == 16 {
                s.v_W = Vec3(v[7], v[8], v[9])
                s.gyroBias_B = Vec3(v[10], v[11], v[12])
                s.accelBias_B = Vec3(v[13], v[14], v[15])
            }
            states.append(s)
        }
        guard !states.isEmpty else { throw TrajectoryFileError.empty(path: source) }
        return states
    }

    /// Writes an ASL ground-truth CSV with the EuRoC header and all 17 columns, values at full precision
    /// (the simulator's `state_groundtruth_estimate0/data.csv` is this text).
    public static func writeASLGroundTruth(_ states: [GroundTruthState], to path: String) throws {
        try writeText(formatASLGroundTruth(states), to: path)
    }

    /// The ASL ground-truth CSV text of `states` (EuRoC header, 17 columns; quaternions (w, x, y, z) normalised).
    public static func formatASLGroundTruth(_ states: [GroundTruthState]) -> String {
        var out = "#timestamp, p_RS_R_x [m], p_RS_R_y [m], p_RS_R_z [m], q_RS_w [], q_RS_x [], q_RS_y [], q_RS_z [], "
            + "v_RS_R_x [m s^-1], v_RS_R_y [m s^-1], v_RS_R_z [m s^-1], b_w_RS_S_x [rad s^-1], b_w_RS_S_y [rad s^-1], "
            + "b_w_RS_S_z [rad s^-1], b_a_RS_S_x [m s^-2], b_a_RS_S_y [m s^-2], b_a_RS_S_z [m s^-2]\n"
        out.reserveCapacity(states.count * 260)
        for s in states {
            let p = s.T_W_B.translation, q = s.T_W_B.rotation.quaternion.normalized
            let values = [p.x, p.y, p.z, q.w, q.x, q.y, q.z,
                          s.v_W.x, s.v_W.y, s.v_W.z, s.gyroBias_B.x, s.gyroBias_B.y, s.gyroBias_B.z,
                          s.accelBias_B.x, s.accelBias_B.y, s.accelBias_B.z]
            out += "\(s.t_ns)," + values.map { "\($0)" }.joined(separator: ",") + "\n"
        }
        return out
    }

    // MARK: Helpers

    /// Seconds text with exactly 9 decimals for a nanosecond time (exact, no floating point).
    public static func secondsText(_ t_ns: TimestampNs) -> String {
        let negative = t_ns < 0
        let magnitude = t_ns.magnitude
        let whole = magnitude / UInt64(Time.nanosecondsPerSecond)
        let frac = String(magnitude % UInt64(Time.nanosecondsPerSecond))
        return (negative ? "-" : "") + "\(whole)." + String(repeating: "0", count: 9 - frac.count) + frac
    }

    /// Parses a seconds field exactly to nanoseconds: plain decimals digit by digit (rounding past the
    /// 9th decimal), so every time ``secondsText(_:)`` writes — up to `Int64.max` ns — reads back exactly;
    /// anything else (exponent notation) through `Double`. Times must be non-negative (as dataset times
    /// are) and fit `Int64` nanoseconds (up to 9223372036.854775807 s).
    static func parseSeconds(_ field: Substring, path: String, line: Int) throws -> TimestampNs {
        let bad = TrajectoryFileError.badLine(path: path, line: line,
                                              reason: "column 1: timestamp '\(field)' is not a finite number of seconds")
        let tooLarge = TrajectoryFileError.badLine(path: path, line: line,
            reason: "column 1: timestamp '\(field)' is too large for seconds (nanoseconds? TUM wants seconds; at most 9223372036.854775807)")
        let negative = TrajectoryFileError.badLine(path: path, line: line,
            reason: "column 1: timestamp '\(field)' is negative (times must be ≥ 0)")
        var s = field
        var isNegative = false
        if s.first == "-" || s.first == "+" { isNegative = s.first == "-"; s = s.dropFirst() }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        let digitsOnly = parts.allSatisfy { $0.allSatisfy { $0 >= "0" && $0 <= "9" } }
        let isPlain = parts.count <= 2 && digitsOnly && parts.contains { !$0.isEmpty }
        if isPlain {
            let wholeText = parts[0].drop { $0 == "0" }
            guard wholeText.count <= 10, let whole = wholeText.isEmpty ? 0 : Int64(wholeText) else { throw tooLarge }
            var fracDigits = parts.count == 2 ? Array(parts[1]) : []
            var roundUp = false
            if fracDigits.count > 9 { roundUp = fracDigits[9] >= "5"; fracDigits = Array(fracDigits[0..<9]) }
            let fracText = String(fracDigits) + String(repeating: "0", count: 9 - fracDigits.count)
            let (scaled, o1) = whole.multipliedReportingOverflow(by: Time.nanosecondsPerSecond)
            let (withFrac, o2) = scaled.addingReportingOverflow((Int64(fracText) ?? 0) + (roundUp ? 1 : 0))
            guard !o1, !o2 else { throw tooLarge }
            if isNegative && withFrac != 0 { throw negative }
            return withFrac
        }
        guard let d = Double(field), d.isFinite else { throw bad }
        guard d >= 0 else { throw negative }
        guard d < 9.2e9 else { throw tooLarge }
        return Time.nanoseconds(d)
    }

    static func parseFinite(_ field: Substring, column: Int, path: String, line: Int) throws -> Double {
        guard let d = Double(field) else {
            throw TrajectoryFileError.badLine(path: path, line: line, reason: "column \(column): '\(field)' is not a number")
        }
        guard d.isFinite else {
            throw TrajectoryFileError.badLine(path: path, line: line, reason: "column \(column): value '\(field)' is not finite")
        }
        return d
    }

    /// A unit quaternion from file values; a norm far from 1 means a wrong column order or a broken row.
    static func unitQuaternion(w: Double, x: Double, y: Double, z: Double, path: String, line: Int) throws -> Quaternion {
        let q = Quaternion(w: w, x: x, y: y, z: z)
        // Files round to ~6 significant digits (norm error ~1e-6); 1e-2 still catches swapped columns.
        guard abs(q.norm - 1) < 1e-2 else {
            throw TrajectoryFileError.badLine(path: path, line: line,
                reason: "quaternion (w \(w), x \(x), y \(y), z \(z)) has norm \(q.norm), expected 1")
        }
        return q.normalized
    }

    static func checkOrder(_ t: TimestampNs, after previous: TimestampNs?, path: String, line: Int) throws {
        guard let previous, t <= previous else { return }
        throw TrajectoryFileError.unsorted(path: path, line: line,
            reason: t == previous ? "duplicate timestamp \(secondsText(t)) s"
                                  : "timestamp \(secondsText(t)) s is before the previous row's \(secondsText(previous)) s (rows must be sorted by time)")
    }

    /// Non-blank lines that are not comments (`#` or `%`), trimmed, with their 1-based line numbers
    /// (``CSVReader``'s line splitting).
    public static func dataLines(_ text: String) -> [(Int, Substring)] {
        CSVReader.dataLines(text, commentMarks: [UInt8(ascii: "#"), UInt8(ascii: "%")])
    }

    /// The UTF-8 text of a file; throws ``TrajectoryFileError/unreadable(path:reason:)`` naming it.
    public static func readText(_ path: String) throws -> String {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw TrajectoryFileError.unreadable(path: path, reason: "no such file")
        }
        guard !isDir.boolValue else { throw TrajectoryFileError.unreadable(path: path, reason: "is a folder, expected a file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TrajectoryFileError.unreadable(path: path, reason: "cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw TrajectoryFileError.unreadable(path: path, reason: "is not UTF-8 text")
        }
        return text
    }

    static func writeText(_ text: String, to path: String) throws {
        do { try text.write(toFile: path, atomically: true, encoding: .utf8) } catch {
            throw TrajectoryFileError.unreadable(path: path, reason: "cannot be written (\(error.localizedDescription))")
        }
    }
}
